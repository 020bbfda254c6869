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
