public import Foundation

/// Every message TallyKit logs, in one place: what the SDK decided about a purchase, and what it
/// could not do and dropped. Each case has its ``level``, its stable ``code`` where an error
/// caused it, and its English ``text`` (messages are for developers, not customers, so they are
/// not localized).
public enum LogMessage: Sendable, Hashable {
    /// A paid transaction did not verify: it is not credited nor finished. A setup mistake
    /// (bundle id, App Apple ID, environments, a missing receipt verifier, Xcode's certificate)
    /// refuses every purchase this way, so it is logged as a fault.
    case verificationRefused(transactionID: String, productID: String, code: String, reason: String)
    /// A paid transaction was refused for good for another reason (`product_not_found`,
    /// `transaction_belongs_to_another_user`, …); kept unfinished.
    case deliveryRefused(transactionID: String, productID: String, code: String, reason: String)
    /// A delivery failed for a reason that may pass (network, server); it is retried.
    case deliveryFailed(transactionID: String, code: String, reason: String)
    /// A delivery is tried again after `seconds`; `failures` failed so far.
    case retryScheduled(transactionID: String, seconds: TimeInterval, failures: Int)
    /// A refused transaction is not delivered again at this start: the last try was recent.
    case rejectedBackedOff(transactionID: String, nextTry: Date)
    /// A transaction was credited and the store told to finish it.
    case finished(transactionID: String, productID: String)
    /// A refund or revocation took back what the transaction granted.
    case refundTakenBack(transactionID: String, productID: String)
    /// A restore delivered `delivered` transactions, and `failed` could not be.
    case restored(delivered: Int, failed: Int)
    /// A restore failed.
    case restoreFailed(code: String, reason: String)
    /// Something the SDK does on the side failed and was left for later (the operation says what).
    case operationFailed(Operation, code: String, reason: String)

    /// What failed in ``LogMessage/operationFailed(_:code:reason:)``.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case readJournal = "reading the journal"
        case recordFailure = "recording a failed delivery in the journal"
        case recordIntent = "recording a prepared purchase's state"
        case closeOrder = "closing an unpaid order"
        case finish = "finishing a delivered transaction"
        case readUnfinished = "reading the store's unfinished transactions"
        case readHistory = "reading the store's transaction history"
        case loadProducts = "loading products"
        case completeOnboarding = "recording onboarding as complete"
        case readOnboarding = "reading whether onboarding is complete"
        case readCache = "reading the cached account"
        case refresh = "refreshing the account"
        case completeIntent = "buying a purchase started on the App Store"
    }

    /// How much it matters.
    public var level: TallyLogLevel {
        switch self {
        case .verificationRefused: .fault
        case .deliveryRefused, .restoreFailed, .operationFailed: .error
        case .deliveryFailed, .rejectedBackedOff, .refundTakenBack: .notice
        case .retryScheduled, .finished, .restored: .info
        }
    }

    /// The stable code of the error behind it (a ``TallyError/Code`` or, for a refused
    /// verification, the verifier's finer code such as `wrong_bundle_id`), if any.
    public var code: String? {
        switch self {
        case .verificationRefused(_, _, let code, _), .deliveryRefused(_, _, let code, _), .deliveryFailed(_, let code, _),
            .restoreFailed(let code, _), .operationFailed(_, let code, _):
            code
        case .retryScheduled, .rejectedBackedOff, .finished, .refundTakenBack, .restored: nil
        }
    }

    /// The transaction it is about, if one.
    public var transactionID: String? {
        switch self {
        case .verificationRefused(let id, _, _, _), .deliveryRefused(let id, _, _, _), .deliveryFailed(let id, _, _),
            .retryScheduled(let id, _, _), .rejectedBackedOff(let id, _), .finished(let id, _), .refundTakenBack(let id, _):
            id
        case .restored, .restoreFailed, .operationFailed: nil
        }
    }

    /// The message, in English.
    public var text: String {
        switch self {
        case .verificationRefused(let id, let product, let code, let reason):
            "Transaction \(id) (\(product)) was paid and did not verify (\(code)): \(reason). It is not credited and stays unfinished; "
                + "check the bundle id, App Apple ID, environments, the receipt verifier and, in Xcode, the StoreKit testing certificate."
        case .deliveryRefused(let id, let product, let code, let reason):
            "Transaction \(id) (\(product)) was refused (\(code)): \(reason). It stays unfinished."
        case .deliveryFailed(let id, let code, let reason):
            "Delivering transaction \(id) failed (\(code)): \(reason). It is retried."
        case .retryScheduled(let id, let seconds, let failures):
            "Transaction \(id) is tried again in \(Int(seconds.rounded())) s, after \(failures) failure(s)."
        case .rejectedBackedOff(let id, let next):
            "Transaction \(id) was refused recently; it is tried again at a start after \(ISO8601DateFormatter().string(from: next)), or by restore or Try Again."
        case .finished(let id, let product):
            "Transaction \(id) (\(product)) is credited and finished."
        case .refundTakenBack(let id, let product):
            "Transaction \(id) (\(product)) was refunded or revoked; what it granted is taken back."
        case .restored(let delivered, let failed):
            "Restore delivered \(delivered) transaction(s); \(failed) could not be delivered."
        case .restoreFailed(let code, let reason):
            "Restore failed (\(code)): \(reason)."
        case .operationFailed(let operation, let code, let reason):
            "Failed \(operation.rawValue) (\(code)): \(reason). Tried again later."
        }
    }
}

/// How much a ``LogMessage`` matters, as `os.Logger`'s levels.
public enum TallyLogLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Detail for debugging.
    case debug
    /// A normal step (a finish, a retry planned).
    case info
    /// Worth noticing (a refund taken back, a delivery to retry).
    case notice
    /// Something failed.
    case error
    /// A mistake that makes purchases fail until it is fixed (a refused verification).
    case fault

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
