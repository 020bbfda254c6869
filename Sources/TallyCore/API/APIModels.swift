public import Foundation

/// The error body of every failed request.
public struct APIErrorBody: Codable, Hashable, Sendable {
    /// The error.
    public var error: Detail

    /// What went wrong.
    public struct Detail: Codable, Hashable, Sendable {
        /// The stable code.
        public var code: TallyErrorCode
        /// A sentence for developers (English).
        public var message: String
        /// The request's identifier, also in the `X-Request-Id` header and the server's logs.
        public var requestId: String?
        /// For `insufficient_credits`: how much of the currency is available now.
        public var available: Int64?
        /// For `insufficient_credits`: the currency.
        public var currency: String?
        /// For `verification_failed`: the verifier's code, such as `bad_signature`.
        public var verificationCode: String?

        /// Creates a value with every field.
        public init(code: TallyErrorCode, message: String, requestId: String? = nil, available: Int64? = nil, currency: String? = nil, verificationCode: String? = nil) {
            self.code = code
            self.message = message
            self.requestId = requestId
            self.available = available
            self.currency = currency
            self.verificationCode = verificationCode
        }
    }

    /// Wraps a detail.
    public init(error: Detail) {
        self.error = error
    }

    /// Creates an error body.
    public init(code: TallyErrorCode, message: String, requestId: String? = nil) {
        self.error = Detail(code: code, message: message, requestId: requestId)
    }
}

/// `POST /v1/users`.
public struct CreateUserRequest: Codable, Hashable, Sendable {
    /// The app's own identifier for the user (only with the secret key).
    public var appUserId: String?
    /// Creates the request.
    public init(appUserId: String? = nil) { self.appUserId = appUserId }
}

/// The answer to `POST /v1/users`.
public struct CreateUserResponse: Codable, Hashable, Sendable {
    /// Tally's identifier of the user.
    public var userId: String
    /// The UUID to pass to StoreKit as `appAccountToken`; stable for the user.
    public var appAccountToken: UUID
    /// The bearer token for the user's own calls. Shown once.
    public var userToken: String
    /// Whether the user was created by this call (false when `app_user_id` already existed).
    public var created: Bool
    /// What the user received on sign-up.
    public var granted: [Amount]

    /// Creates a value with every field.
    public init(userId: String, appAccountToken: UUID, userToken: String, created: Bool, granted: [Amount]) {
        self.userId = userId
        self.appAccountToken = appAccountToken
        self.userToken = userToken
        self.created = created
        self.granted = granted
    }
}

/// A product as the server sells it, with its paywall text in one language.
public struct ProductInfo: Codable, Hashable, Sendable {
    /// The App Store product identifier.
    public var productId: String
    /// consumable, non_consumable, non_renewing or auto_renewable.
    public var kind: String
    /// What one unit grants.
    public var grants: [Amount]
    /// The entitlements it unlocks.
    public var entitlements: [String]
    /// The periodic allowance of a subscription.
    public var allowance: Allowance?
    /// Paywall text in the requested language.
    public var paywall: Paywall

    /// A periodic allowance: `amount` of `currency` per `per` (day, week, month, year).
    public struct Allowance: Codable, Hashable, Sendable {
        public var currency: String
        public var amount: Int64
        public var per: String

        /// Creates a value with every field.
        public init(currency: String, amount: Int64, per: String) {
            self.currency = currency
            self.amount = amount
            self.per = per
        }
    }

    /// Paywall text.
    public struct Paywall: Codable, Hashable, Sendable {
        public var title: String
        public var description: String
        public var benefits: [String]
        public var aiExplanation: String?
        public var locale: String

        /// Creates a value with every field.
        public init(title: String, description: String, benefits: [String], aiExplanation: String? = nil, locale: String) {
            self.title = title
            self.description = description
            self.benefits = benefits
            self.aiExplanation = aiExplanation
            self.locale = locale
        }
    }

    /// Creates a value with every field.
    public init(productId: String, kind: String, grants: [Amount], entitlements: [String], allowance: Allowance? = nil, paywall: Paywall) {
        self.productId = productId
        self.kind = kind
        self.grants = grants
        self.entitlements = entitlements
        self.allowance = allowance
        self.paywall = paywall
    }
}

/// The answer to `GET /v1/products`.
public struct ProductsResponse: Codable, Hashable, Sendable {
    /// The locale the texts are in.
    public var locale: String
    /// The currencies, with their display names in that locale.
    public var currencies: [Currency]
    /// The products.
    public var products: [ProductInfo]

    /// A currency and its display name.
    public struct Currency: Codable, Hashable, Sendable {
        public var code: String
        public var name: String

        /// Creates a value with every field.
        public init(code: String, name: String) {
            self.code = code
            self.name = name
        }
    }

    /// Creates a value with every field.
    public init(locale: String, currencies: [Currency], products: [ProductInfo]) {
        self.locale = locale
        self.currencies = currencies
        self.products = products
    }
}

/// `POST /v1/me/orders`.
public struct CreateOrderRequest: Codable, Hashable, Sendable {
    /// The product to buy.
    public var productId: String
    /// Creates the request.
    public init(productId: String) { self.productId = productId }
}

/// An order: created before payment, fulfilled by the transaction that pays it.
public struct Order: Codable, Hashable, Sendable {
    /// The order's identifier.
    public var orderId: String
    /// The product.
    public var productId: String
    /// The token to pass to StoreKit as `appAccountToken`.
    public var appAccountToken: UUID
    /// created, fulfilled, failed or expired.
    public var status: String
    /// The transaction that fulfilled it.
    public var transactionId: String?
    /// Why it failed.
    public var failureReason: String?
    /// When it was created.
    public var createdAt: Date
    /// When an unpaid order expires.
    public var expiresAt: Date

    /// Creates a value with every field.
    public init(orderId: String, productId: String, appAccountToken: UUID, status: String, transactionId: String? = nil, failureReason: String? = nil, createdAt: Date, expiresAt: Date) {
        self.orderId = orderId
        self.productId = productId
        self.appAccountToken = appAccountToken
        self.status = status
        self.transactionId = transactionId
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/me/orders/{id}/fail`: the payment failed or was cancelled.
public struct FailOrderRequest: Codable, Hashable, Sendable {
    /// Why: cancelled, payment_declined, …
    public var reason: String
    /// Creates the request.
    public init(reason: String) { self.reason = reason }
}

/// `POST /v1/me/purchases`.
public struct PurchaseRequest: Codable, Hashable, Sendable {
    /// The transaction's JWS, as StoreKit gives it.
    public var signedTransaction: String
    /// The order the purchase pays, if one was created.
    public var orderId: String?
    /// Creates the request.
    public init(signedTransaction: String, orderId: String? = nil) {
        self.signedTransaction = signedTransaction
        self.orderId = orderId
    }
}

/// What a verified purchase gave; a replay returns the first answer with `replayed` true.
public struct PurchaseResponse: Codable, Hashable, Sendable {
    /// The App Store transaction.
    public var transactionId: String
    /// The product.
    public var productId: String
    /// What this transaction granted (nothing for a replay of a revoked one).
    public var granted: [Amount]
    /// The user's balances after it.
    public var balances: [Balance]
    /// The user's entitlements after it.
    public var entitlements: [Entitlement]
    /// True when the transaction had been delivered before: nothing was granted this time.
    public var replayed: Bool

    /// Creates a value with every field.
    public init(transactionId: String, productId: String, granted: [Amount], balances: [Balance], entitlements: [Entitlement], replayed: Bool) {
        self.transactionId = transactionId
        self.productId = productId
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
        public var transactionId: String?
        public var purchase: PurchaseResponse?
        public var error: APIErrorBody.Detail?

        /// Creates a value with every field.
        public init(transactionId: String? = nil, purchase: PurchaseResponse? = nil, error: APIErrorBody.Detail? = nil) {
            self.transactionId = transactionId
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

/// A balance of one currency.
public struct Balance: Codable, Hashable, Sendable {
    /// The currency.
    public var currency: String
    /// What can be spent now, allowance excluded.
    public var available: Int64
    /// What reservations hold.
    public var held: Int64
    /// What refunds took back after it was spent; the next grants repay it.
    public var debt: Int64
    /// The subscription allowance of the current period, if any.
    public var allowance: AllowanceState?
    /// What can be spent now: allowance left plus available.
    public var spendable: Int64

    /// The allowance of the current period.
    public struct AllowanceState: Codable, Hashable, Sendable {
        public var granted: Int64
        public var used: Int64
        public var held: Int64
        public var periodEnd: Date

        /// Creates a value with every field.
        public init(granted: Int64, used: Int64, held: Int64, periodEnd: Date) {
            self.granted = granted
            self.used = used
            self.held = held
            self.periodEnd = periodEnd
        }
    }

    /// Creates a value with every field.
    public init(currency: String, available: Int64, held: Int64, debt: Int64, allowance: AllowanceState? = nil, spendable: Int64) {
        self.currency = currency
        self.available = available
        self.held = held
        self.debt = debt
        self.allowance = allowance
        self.spendable = spendable
    }
}

/// An entitlement and its state.
public struct Entitlement: Codable, Hashable, Sendable {
    /// The entitlement, as named in the catalog (`pro`).
    public var id: String
    /// Whether it is in force now.
    public var active: Bool
    /// The product that gives it.
    public var productId: String
    /// When it ends; nil for ever (non-consumables).
    public var expiresAt: Date?
    /// In a billing grace period: active, but the last renewal failed.
    public var inGracePeriod: Bool
    /// Whether the subscription will renew.
    public var willRenew: Bool?

    /// Creates a value with every field.
    public init(id: String, active: Bool, productId: String, expiresAt: Date? = nil, inGracePeriod: Bool, willRenew: Bool? = nil) {
        self.id = id
        self.active = active
        self.productId = productId
        self.expiresAt = expiresAt
        self.inGracePeriod = inGracePeriod
        self.willRenew = willRenew
    }
}

/// A subscription as the server knows it.
public struct SubscriptionInfo: Codable, Hashable, Sendable {
    public var originalTransactionId: String
    public var productId: String
    /// active, grace_period, billing_retry, expired or revoked.
    public var status: String
    public var expiresAt: Date?
    public var willRenew: Bool?
    public var gracePeriodExpiresAt: Date?

    /// Creates a value with every field.
    public init(originalTransactionId: String, productId: String, status: String, expiresAt: Date? = nil, willRenew: Bool? = nil, gracePeriodExpiresAt: Date? = nil) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.status = status
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
    }
}

/// The answer to `GET /v1/me`.
public struct AccountResponse: Codable, Hashable, Sendable {
    public var userId: String
    public var appAccountToken: UUID
    public var balances: [Balance]
    public var entitlements: [Entitlement]
    public var subscriptions: [SubscriptionInfo]

    /// Creates a value with every field.
    public init(userId: String, appAccountToken: UUID, balances: [Balance], entitlements: [Entitlement], subscriptions: [SubscriptionInfo]) {
        self.userId = userId
        self.appAccountToken = appAccountToken
        self.balances = balances
        self.entitlements = entitlements
        self.subscriptions = subscriptions
    }
}

/// One ledger entry.
public struct LedgerEntry: Codable, Hashable, Sendable {
    /// Increasing with time; the paging cursor.
    public var id: Int64
    public var currency: String
    /// signup, purchase, spend, refund, refund_debt, refund_reversal, adjustment, allowance_grant, allowance_spend.
    public var kind: String
    /// balance or allowance.
    public var bucket: String
    /// Signed: positive grants, negative takes.
    public var amount: Int64
    public var transactionId: String?
    public var reference: String?
    public var createdAt: Date

    /// Creates a value with every field.
    public init(id: Int64, currency: String, kind: String, bucket: String, amount: Int64, transactionId: String? = nil, reference: String? = nil, createdAt: Date) {
        self.id = id
        self.currency = currency
        self.kind = kind
        self.bucket = bucket
        self.amount = amount
        self.transactionId = transactionId
        self.reference = reference
        self.createdAt = createdAt
    }
}

/// The answer to `GET /v1/me/ledger`.
public struct LedgerPage: Codable, Hashable, Sendable {
    /// Newest first.
    public var entries: [LedgerEntry]
    /// Pass as `cursor` for the next page; nil on the last.
    public var nextCursor: String?

    /// Creates a value with every field.
    public init(entries: [LedgerEntry], nextCursor: String? = nil) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}

/// `POST /v1/me/spend`.
public struct SpendRequest: Codable, Hashable, Sendable {
    public var currency: String
    public var amount: Int64
    /// The client's key for this spend: a repeat returns the first result.
    public var idempotencyKey: String
    /// What the spend was for (a report id, an image id).
    public var reference: String?
    /// Creates the request.
    public init(currency: String, amount: Int64, idempotencyKey: String, reference: String? = nil) {
        self.currency = currency
        self.amount = amount
        self.idempotencyKey = idempotencyKey
        self.reference = reference
    }
}

/// The answer to a spend.
public struct SpendResponse: Codable, Hashable, Sendable {
    public var spendId: String
    public var currency: String
    public var amount: Int64
    /// The part taken from the subscription allowance.
    public var fromAllowance: Int64
    /// The part taken from the purchased balance.
    public var fromBalance: Int64
    /// The balance after the spend.
    public var balance: Balance
    /// True when the idempotency key was seen before: nothing was spent this time.
    public var replayed: Bool

    /// Creates a value with every field.
    public init(spendId: String, currency: String, amount: Int64, fromAllowance: Int64, fromBalance: Int64, balance: Balance, replayed: Bool) {
        self.spendId = spendId
        self.currency = currency
        self.amount = amount
        self.fromAllowance = fromAllowance
        self.fromBalance = fromBalance
        self.balance = balance
        self.replayed = replayed
    }
}

/// `POST /v1/me/reservations`.
public struct ReservationRequest: Codable, Hashable, Sendable {
    public var currency: String
    public var amount: Int64
    /// How long the hold lasts before it releases itself.
    public var ttlSeconds: Int64
    public var idempotencyKey: String
    /// Creates the request.
    public init(currency: String, amount: Int64, ttlSeconds: Int64, idempotencyKey: String) {
        self.currency = currency
        self.amount = amount
        self.ttlSeconds = ttlSeconds
        self.idempotencyKey = idempotencyKey
    }
}

/// `POST /v1/me/reservations/{id}/commit`.
public struct CommitReservationRequest: Codable, Hashable, Sendable {
    /// How much was actually used; the rest returns.
    public var used: Int64
    /// Creates the request.
    public init(used: Int64) { self.used = used }
}

/// A reservation (a hold) and its state.
public struct Reservation: Codable, Hashable, Sendable {
    public var reservationId: String
    public var currency: String
    public var amount: Int64
    public var fromAllowance: Int64
    public var fromBalance: Int64
    /// held, committed, released or expired.
    public var status: String
    public var used: Int64?
    public var expiresAt: Date
    public var balance: Balance
    /// True when the idempotency key was seen before.
    public var replayed: Bool

    /// Creates a value with every field.
    public init(reservationId: String, currency: String, amount: Int64, fromAllowance: Int64, fromBalance: Int64, status: String, used: Int64? = nil, expiresAt: Date, balance: Balance, replayed: Bool) {
        self.reservationId = reservationId
        self.currency = currency
        self.amount = amount
        self.fromAllowance = fromAllowance
        self.fromBalance = fromBalance
        self.status = status
        self.used = used
        self.expiresAt = expiresAt
        self.balance = balance
        self.replayed = replayed
    }
}
