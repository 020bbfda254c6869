/// An amount of one currency: `{"currency": "credits", "amount": 10}`.
public struct Amount: Codable, Hashable, Sendable {
    /// The currency code from the server's catalog, such as `credits` or `seconds`.
    public var currency: String
    /// A whole number of the currency's units.
    public var amount: Int64

    /// Creates an amount.
    public init(currency: String, amount: Int64) {
        self.currency = currency
        self.amount = amount
    }
}
