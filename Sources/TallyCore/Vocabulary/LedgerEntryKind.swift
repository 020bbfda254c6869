/// Why a ledger entry moved an amount. The server's ledger and the device's speak the same
/// words; a few are written by one of them only, as each constant says.
public struct LedgerEntryKind: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// What a verified purchase granted.
    public static let purchase = Self(rawValue: "purchase")
    /// What a new user received (server).
    public static let signup = Self(rawValue: "signup")
    /// Spent, oldest purchase first.
    public static let spend = Self(rawValue: "spend")
    /// What a refund or revocation took back of what was left.
    public static let refund = Self(rawValue: "refund")
    /// What a refund could not take back because it was spent: recorded as debt.
    public static let refundDebt = Self(rawValue: "refund_debt")
    /// What a reversed refund gave back.
    public static let refundReversal = Self(rawValue: "refund_reversal")
    /// An operator's correction (server).
    public static let adjustment = Self(rawValue: "adjustment")
    /// What a negative correction could not take because it was spent: recorded as debt (server).
    public static let adjustmentDebt = Self(rawValue: "adjustment_debt")
    /// A subscription's allowance for its period (server).
    public static let allowanceGrant = Self(rawValue: "allowance_grant")
    /// Spent from a subscription's allowance (server).
    public static let allowanceSpend = Self(rawValue: "allowance_spend")
    /// Debt paid back from a later grant (device).
    public static let repay = Self(rawValue: "repay")
    /// Held for a reservation (device).
    public static let hold = Self(rawValue: "hold")
    /// A reservation returned whole (device).
    public static let release = Self(rawValue: "release")
    /// A reservation closed by what was used (device).
    public static let commit = Self(rawValue: "commit")
    /// A reservation returned because nobody committed it in time (device).
    public static let expire = Self(rawValue: "expire")

    public static let all: [Self] = [
        .purchase, .signup, .spend, .refund, .refundDebt, .refundReversal, .adjustment, .adjustmentDebt,
        .allowanceGrant, .allowanceSpend, .repay, .hold, .release, .commit, .expire,
    ]
}
