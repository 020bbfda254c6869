/// `POST /v1/me/purchases`: a purchase in one of three forms, told apart by which members the
/// body has. StoreKit 2 sends ``signedTransaction``; StoreKit 1 sends the app ``receipt`` and
/// the ``transactionID`` of the purchase in it to deliver; a ``transactionID`` alone asks a
/// server with the App Store Server API to fetch the signed transaction from Apple. A body with
/// both a signed transaction and a receipt, or none of the three, is refused.
public struct PurchaseRequest: Codable, Hashable, Sendable {
    /// The transaction's JWS, as StoreKit 2 gives it (`Transaction.jwsRepresentation`).
    public var signedTransaction: String?
    /// The app receipt in base64 (the contents of `Bundle.main.appStoreReceiptURL`), StoreKit 1.
    public var receipt: String?
    /// With ``receipt``: the transaction to deliver (`SKPaymentTransaction.transactionIdentifier`);
    /// alone: the transaction the server fetches from Apple (`Transaction.id`).
    public var transactionID: String?
    /// The order the purchase pays, if one was created.
    public var orderID: String?

    /// A StoreKit 2 purchase: its signed transaction.
    public init(signedTransaction: String, orderID: String? = nil) {
        self.signedTransaction = signedTransaction
        self.orderID = orderID
    }

    /// A StoreKit 1 purchase: the app receipt and the transaction in it.
    public init(receipt: String, transactionID: String, orderID: String? = nil) {
        self.receipt = receipt
        self.transactionID = transactionID
        self.orderID = orderID
    }

    /// A transaction by its id alone: the server asks Apple for it.
    public init(transactionID: String, orderID: String? = nil) {
        self.transactionID = transactionID
        self.orderID = orderID
    }

    private enum CodingKeys: String, CodingKey {
        case signedTransaction, receipt, transactionID, orderID
    }

    /// Decodes a body in which each member may be left out; `order_id` may also be null, the
    /// others may not (which form a body is must not depend on a null).
    /// - Throws: `DecodingError.valueNotFound` for a null other than `order_id`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        signedTransaction = try container.decodeUnlessAbsent(String.self, forKey: .signedTransaction)
        receipt = try container.decodeUnlessAbsent(String.self, forKey: .receipt)
        transactionID = try container.decodeUnlessAbsent(String.self, forKey: .transactionID)
        orderID = try container.decodeIfPresent(String.self, forKey: .orderID)
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

/// `POST /v1/me/restore`: signed transactions (StoreKit 2), an app receipt whose every in-app
/// purchase is delivered (StoreKit 1), or both.
public struct RestoreRequest: Codable, Hashable, Sendable {
    /// The JWS of each transaction to deliver; empty when the body has none.
    public var signedTransactions: [String]
    /// An app receipt in base64: each of its in-app purchases is delivered.
    public var receipt: String?

    /// Creates the request.
    public init(signedTransactions: [String] = [], receipt: String? = nil) {
        self.signedTransactions = signedTransactions
        self.receipt = receipt
    }

    private enum CodingKeys: String, CodingKey {
        case signedTransactions, receipt
    }

    /// Decodes a body with `signed_transactions`, `receipt`, or both; neither may be null.
    /// - Throws: `DecodingError.keyNotFound` when it has neither, `valueNotFound` for a null.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        receipt = try container.decodeUnlessAbsent(String.self, forKey: .receipt)
        if receipt == nil || container.contains(.signedTransactions) {
            signedTransactions = try container.decode([String].self, forKey: .signedTransactions)
        } else {
            signedTransactions = []
        }
    }

    /// Encodes the members that have a value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !signedTransactions.isEmpty || receipt == nil { try container.encode(signedTransactions, forKey: .signedTransactions) }
        try container.encodeIfPresent(receipt, forKey: .receipt)
    }
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

extension KeyedDecodingContainer {
    /// The member's value, or nil when the member is absent; unlike `decodeIfPresent`, a null
    /// is refused (`DecodingError.valueNotFound`).
    fileprivate func decodeUnlessAbsent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        contains(key) ? try decode(type, forKey: key) : nil
    }
}
