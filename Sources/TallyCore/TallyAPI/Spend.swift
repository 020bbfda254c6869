/// A spend: the body of `POST /v1/me/spend`, and what an app asks TallyKit to spend.
public struct SpendRequest: Codable, Hashable, Sendable {
    /// The currency.
    public var currency: String
    /// How much, more than zero.
    public var amount: Int64
    /// The key that makes a retry spend nothing more; kept across retries and restarts. A repeat
    /// returns the first result.
    public var idempotencyKey: String
    /// What it was spent on (a profile, a report, a job), kept in the ledger for audit.
    public var reference: String?

    /// - Parameters:
    ///   - currency: the currency.
    ///   - amount: how much.
    ///   - idempotencyKey: a key unique to this spend, the same on every retry (derive it from
    ///     what is paid for: `"photo-\(photo.id)"`).
    ///   - reference: what it was spent on.
    public init(currency: String, amount: Int64, idempotencyKey: String, reference: String? = nil) {
        self.currency = currency
        self.amount = amount
        self.idempotencyKey = idempotencyKey
        self.reference = reference
    }
}

/// The answer to a spend.
public struct SpendResponse: Codable, Hashable, Sendable {
    public var spendID: String
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
    public init(spendID: String, currency: String, amount: Int64, fromAllowance: Int64, fromBalance: Int64, balance: Balance, replayed: Bool) {
        self.spendID = spendID
        self.currency = currency
        self.amount = amount
        self.fromAllowance = fromAllowance
        self.fromBalance = fromBalance
        self.balance = balance
        self.replayed = replayed
    }
}
