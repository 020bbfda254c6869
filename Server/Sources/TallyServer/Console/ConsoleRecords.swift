public import Foundation
public import TallyCore

/// What an operator of the console may do: everything, or look only.
public enum ConsoleRole: String, Sendable, CaseIterable {
    /// Reads every page and changes balances and entitlements.
    case admin
    /// Reads every page and exports; changes nothing.
    case readOnly = "read_only"
}

/// A signed-in operator, as the session cookie's row says.
public struct ConsoleSession: Sendable, Hashable {
    /// Who: an operator's name, or `secret-key` for a sign-in with the server's secret key.
    public var actor: String
    /// What they may do.
    public var role: ConsoleRole
    /// The synchronizer token every state-changing form of this session carries.
    public var csrfToken: String
    /// When the session ends.
    public var expiresAt: Date
    /// For a session opened with the secret key: the key's SHA-256, so that it ends with the key.
    public var keyHash: String?
}

/// One line of the audit log: who did what to what, with the state before and after.
public struct ConsoleAuditEntry: Sendable, Hashable {
    public var id: Int64
    public var at: Date
    public var actor: String
    /// `sign_in`, `sign_in_failed`, `sign_out`, `adjust`, `grant_entitlement`, `revoke_entitlement`, `export`.
    public var action: String
    /// What the action was about: a user id, an operator, a list.
    public var target: String?
    /// The state before, as compact JSON; nil when there was none.
    public var before: String?
    /// The state after, as compact JSON.
    public var after: String?
    /// Anything else worth keeping: the reason given, the filter exported.
    public var detail: String?
}

/// An entitlement an operator granted until a date, outside any purchase.
public struct GrantedEntitlement: Sendable, Hashable, Codable {
    public var id: String
    public var userID: String
    public var entitlement: String
    public var expiresAt: Date
    public var reason: String
    public var grantedBy: String
    public var createdAt: Date
    public var revokedAt: Date?
    public var revokedBy: String?
    /// The same idempotency key again: this is the first grant, nothing was added.
    public var replayed: Bool
}

/// Figures over a window of time for the console's overview.
public struct ConsoleOverview: Sendable, Hashable {
    /// Payments (purchases and renewals) and their signed prices, by currency and storefront.
    public struct Revenue: Sendable, Hashable {
        public var currency: String?
        public var storefront: String?
        public var count: Int64
        /// The sum of the signed prices, in milliunits of `currency`; transactions without a price add nothing.
        public var milliunits: Int64
    }

    /// The ledger's movements of one kind in one currency.
    public struct Movement: Sendable, Hashable {
        public var currency: String
        public var kind: String
        public var count: Int64
        public var amount: Int64
    }

    /// One day of the chart.
    public struct Day: Sendable, Hashable {
        public var start: Date
        public var purchases: Int64
        public var refunds: Int64
    }

    public var from: Date
    public var to: Date
    public var purchases: Int64
    public var revenue: [Revenue]
    public var refunds: Int64
    /// Refunds' signed prices by currency.
    public var refunded: [Revenue]
    public var movements: [Movement]
    /// What users owe now (not only within the window), per currency, and how many owe.
    public var debt: [Movement]
    /// Signed data refused in the window, by where it came from and the verifier's code.
    public var verificationFailures: [Movement]
    public var days: [Day]
}

/// Filters of the ledger list; each given filter narrows it.
public struct ConsoleLedgerQuery: Sendable, Hashable {
    public var currency: String?
    public var kind: String?
    public var userID: String?
    public var from: Date?
    public var to: Date?
    public var limit: Int
    /// Entries after this one (the previous page's last), newest first.
    public var before: Position?

    /// A place in the ledger's list: newest first by time, then by id among entries of the
    /// same millisecond; in one user's list, by id alone (the order the entries were written),
    /// and the time it carries is not compared.
    public struct Position: Sendable, Hashable {
        public var createdAt: Int64
        public var id: Int64

        public init(createdAt: Int64, id: Int64) {
            self.createdAt = createdAt
            self.id = id
        }

        /// Reads `<milliseconds>_<id>`, as ``text`` writes it; nil for anything else.
        public init?(text: String) {
            let parts = text.split(separator: "_", omittingEmptySubsequences: false)
            guard parts.count == 2, let createdAt = Int64(parts[0]), createdAt >= 0, let id = Int64(parts[1]), id > 0 else { return nil }
            self.init(createdAt: createdAt, id: id)
        }

        public var text: String { "\(createdAt)_\(id)" }
    }

    public init(
        currency: String? = nil, kind: String? = nil, userID: String? = nil, from: Date? = nil, to: Date? = nil, limit: Int = 50,
        before: Position? = nil
    ) {
        self.currency = currency
        self.kind = kind
        self.userID = userID
        self.from = from
        self.to = to
        self.limit = limit
        self.before = before
    }
}

/// A page of ledger entries with their users.
public struct ConsoleLedgerPage: Sendable, Hashable {
    public struct Row: Sendable, Hashable {
        public var userID: String
        public var entry: LedgerEntry
    }
    public var rows: [Row]
    /// Where the next page starts; nil on the last.
    public var next: ConsoleLedgerQuery.Position?
}

/// Something that happened to a user, for the user's timeline: data only, which the page
/// words in its language.
public struct ConsoleEvent: Sendable, Hashable {
    /// `purchase`, `refund`, `notification`, `ledger`, `grant`, `revoke`, `signup`.
    public var kind: String
    public var at: Date
    /// What it was: a product (with its price), a notification type, a ledger kind with its
    /// amount, an entitlement, a user id.
    public var summary: String
    /// The transaction it concerns, when there is one.
    public var transactionID: String?
    /// Text kept as it was written or coded: a notification's outcome, a ledger entry's
    /// reference, who granted and why, who revoked.
    public var detail: String?
    /// A purchase's App Store environment (`Production`, `Sandbox`, …).
    public var environment: String?
    /// When the server received a purchase.
    public var receivedAt: Date?
    /// A refund's reason as the App Store gives it: 0 for another reason, 1 for an issue in the app.
    public var revocationReason: Int64?
    /// When a granted entitlement ends.
    public var until: Date?

    public init(
        kind: String, at: Date, summary: String, transactionID: String?, detail: String? = nil, environment: String? = nil,
        receivedAt: Date? = nil, revocationReason: Int64? = nil, until: Date? = nil
    ) {
        self.kind = kind
        self.at = at
        self.summary = summary
        self.transactionID = transactionID
        self.detail = detail
        self.environment = environment
        self.receivedAt = receivedAt
        self.revocationReason = revocationReason
        self.until = until
    }
}

/// A user a search text names, and by which of their ids.
public struct ConsoleUserMatch: Sendable, Hashable {
    /// The ids a search looks at, in order of preference.
    public enum Field: Int, Sendable, Comparable, CaseIterable {
        case userID, appAccountToken, appUserID

        public static func < (left: Field, right: Field) -> Bool { left.rawValue < right.rawValue }
    }

    public var userID: String
    /// The best of the user's ids that the text is.
    public var field: Field

    public init(userID: String, field: Field) {
        self.userID = userID
        self.field = field
    }
}

/// A notification with its signed payload, for the console's detail page.
public struct ConsoleNotification: Sendable {
    public var notification: AdminNotification
    public var originalTransactionID: String?
    public var environment: String?
    public var signedDate: Date?
    /// The JWS as received.
    public var jws: String
}

/// A page of the audit log.
public struct ConsoleAuditPage: Sendable, Hashable {
    public var entries: [ConsoleAuditEntry]
    public var next: Int64?
}
