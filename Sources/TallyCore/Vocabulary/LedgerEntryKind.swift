/// Why a ledger entry moved an amount, or why units were taken from a lot. The server and the
/// device keep one ledger (TallyLedger) and speak the same words; a few are written by the
/// server only, as each constant says.
public struct LedgerEntryKind: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// What a verified purchase granted.
    public static let purchase = Self(rawValue: "purchase")
    /// What a new user received (server).
    public static let signup = Self(rawValue: "signup")
    /// Spent, from the lots in the order they were delivered.
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
    /// Debt paid back out of the lots by units a hold returned: a take from a lot in the
    /// device's credit history, never an entry (it changes nothing of the balance).
    public static let repay = Self(rawValue: "repay")

    public static let all: [Self] = [
        .purchase, .signup, .spend, .refund, .refundDebt, .refundReversal, .adjustment, .adjustmentDebt,
        .allowanceGrant, .allowanceSpend, .repay,
    ]
}
