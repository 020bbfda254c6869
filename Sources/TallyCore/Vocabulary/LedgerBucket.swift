/// Which part of a balance a ledger entry moves.
public struct LedgerBucket: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// What was bought or given: spendable.
    public static let balance = Self(rawValue: "balance")
    /// A subscription's allowance for the current period, used before the balance (server).
    public static let allowance = Self(rawValue: "allowance")

    public static let all: [Self] = [.balance, .allowance]
}
