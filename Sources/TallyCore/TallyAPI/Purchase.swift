/// `POST /v1/me/purchases`.
public struct PurchaseRequest: Codable, Hashable, Sendable {
    /// The transaction's JWS, as StoreKit gives it.
    public var signedTransaction: String
    /// The order the purchase pays, if one was created.
    public var orderID: String?
    /// Creates the request.
    public init(signedTransaction: String, orderID: String? = nil) {
        self.signedTransaction = signedTransaction
        self.orderID = orderID
    }
}

/// What a verified purchase gave; a replay returns the first answer with `replayed` true.
public struct PurchaseResponse: Codable, Hashable, Sendable {
    /// The App Store transaction.
    public var transactionID: String
    /// The product.
    public var productID: String
    /// What this transaction granted (nothing for a replay of a revoked one).
    public var granted: [Amount]
    /// The user's balances after it.
    public var balances: [Balance]
    /// The user's entitlements after it.
    public var entitlements: [Entitlement]
    /// True when the transaction had been delivered before: nothing was granted this time.
    public var replayed: Bool

    /// Creates a value with every field.
    public init(transactionID: String, productID: String, granted: [Amount], balances: [Balance], entitlements: [Entitlement], replayed: Bool) {
        self.transactionID = transactionID
        self.productID = productID
        self.granted = granted
        self.balances = balances
        self.entitlements = entitlements
        self.replayed = replayed
    }
}

/// `POST /v1/me/restore`.
public struct RestoreRequest: Codable, Hashable, Sendable {
    /// The JWS of each transaction to deliver.
    public var signedTransactions: [String]
    /// Creates the request.
    public init(signedTransactions: [String]) { self.signedTransactions = signedTransactions }
}

/// The answer to `POST /v1/me/restore`: one result per transaction, in order.
public struct RestoreResponse: Codable, Hashable, Sendable {
    /// The results.
    public var results: [Item]
    /// The user's balances after all of them.
    public var balances: [Balance]
    /// The user's entitlements after all of them.
    public var entitlements: [Entitlement]

    /// One transaction's outcome: its purchase answer, or its error.
    public struct Item: Codable, Hashable, Sendable {
        public var transactionID: String?
        public var purchase: PurchaseResponse?
        public var error: APIErrorBody.Detail?

        /// Creates a value with every field.
        public init(transactionID: String? = nil, purchase: PurchaseResponse? = nil, error: APIErrorBody.Detail? = nil) {
            self.transactionID = transactionID
            self.purchase = purchase
            self.error = error
        }
    }

    /// Creates a value with every field.
    public init(results: [Item], balances: [Balance], entitlements: [Entitlement]) {
        self.results = results
        self.balances = balances
        self.entitlements = entitlements
    }
}
