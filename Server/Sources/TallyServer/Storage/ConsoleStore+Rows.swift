import Foundation
import TallyCore
import TallySQL

/// The console's rows, each kind decoded in one place through its column constants.
extension ConsoleStore {
    /// An operator as lists show them: `name, role` of `console_operators`.
    struct OperatorRow: SQLRowDecodable {
        enum Columns {
            static let name = SQLColumn("name")
            static let passwordHash = SQLColumn("password_hash")
            static let role = SQLColumn("role")
        }

        /// The columns read, without the password hash.
        static let selection: SQL = "\(Columns.name), \(Columns.role)"

        let name: String
        /// As stored; a role this version does not know reads as read-only where it is used.
        let role: String

        init(row: SQLRow) throws(SQLDatabaseError) {
            name = try row.text(Columns.name)
            role = try row.text(Columns.role)
        }
    }

    /// What a sign-in checks: `password_hash, role` of `console_operators`.
    struct OperatorCredentials: SQLRowDecodable {
        typealias Columns = OperatorRow.Columns

        let passwordHash: String
        let role: String

        init(row: SQLRow) throws(SQLDatabaseError) {
            passwordHash = try row.text(Columns.passwordHash)
            role = try row.text(Columns.role)
        }
    }

    /// A row of `console_sessions`.
    struct SessionRow: SQLRowDecodable {
        enum Columns {
            static let actor = SQLColumn("actor")
            static let role = SQLColumn("role")
            static let csrfToken = SQLColumn("csrf_token")
            static let keyHash = SQLColumn("key_hash")
            static let expiresAt = SQLColumn("expires_at")
        }

        let actor: String
        let role: String
        let csrfToken: String
        let keyHash: String?
        let expiresAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            actor = try row.text(Columns.actor)
            role = try row.text(Columns.role)
            csrfToken = try row.text(Columns.csrfToken)
            keyHash = try row.optionalText(Columns.keyHash)
            expiresAt = try row.int(Columns.expiresAt)
        }
    }

    /// A row of `console_audit`.
    struct AuditRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let at = SQLColumn("at")
            static let actor = SQLColumn("actor")
            static let action = SQLColumn("action")
            static let target = SQLColumn("target")
            static let before = SQLColumn("before_text")
            static let after = SQLColumn("after_text")
            static let detail = SQLColumn("detail")
        }

        let entry: ConsoleAuditEntry

        init(row: SQLRow) throws(SQLDatabaseError) {
            entry = ConsoleAuditEntry(
                id: try row.int(Columns.id), at: SQLStorage.date(try row.int(Columns.at)), actor: try row.text(Columns.actor),
                action: try row.text(Columns.action), target: try row.optionalText(Columns.target), before: try row.optionalText(Columns.before),
                after: try row.optionalText(Columns.after), detail: try row.optionalText(Columns.detail))
        }
    }

    /// A row of `granted_entitlements`.
    struct GrantRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let userID = SQLColumn("user_id")
            static let entitlement = SQLColumn("entitlement")
            static let expiresAt = SQLColumn("expires_at")
            static let reason = SQLColumn("reason")
            static let grantedBy = SQLColumn("granted_by")
            static let createdAt = SQLColumn("created_at")
            static let revokedAt = SQLColumn("revoked_at")
            static let revokedBy = SQLColumn("revoked_by")
        }

        let grant: GrantedEntitlement

        init(row: SQLRow) throws(SQLDatabaseError) {
            grant = GrantedEntitlement(
                id: try row.text(Columns.id), userID: try row.text(Columns.userID), entitlement: try row.text(Columns.entitlement),
                expiresAt: SQLStorage.date(try row.int(Columns.expiresAt)), reason: try row.text(Columns.reason),
                grantedBy: try row.text(Columns.grantedBy), createdAt: SQLStorage.date(try row.int(Columns.createdAt)),
                revokedAt: try row.optionalInt(Columns.revokedAt).map(SQLStorage.date), revokedBy: try row.optionalText(Columns.revokedBy),
                replayed: false)
        }
    }

    /// A row of `notifications` with its payload, for the notification's page.
    struct NotificationRow: SQLRowDecodable {
        typealias Columns = AdminNotificationRow.Columns

        let notification: ConsoleNotification

        init(row: SQLRow) throws(SQLDatabaseError) {
            notification = ConsoleNotification(
                notification: try AdminNotificationRow(row: row).notification,
                originalTransactionID: try row.optionalText(Columns.originalTransactionID), environment: try row.optionalText(Columns.environment),
                signedDate: try row.optionalInt(Columns.signedDate).map(SQLStorage.date), jws: try row.text(Columns.jws))
        }
    }

    /// Refusals of signed data summed by source and code.
    struct FailureSum: SQLRowDecodable {
        enum Columns {
            static let source = SQLColumn("source")
            static let code = SQLColumn("code")
            static let total = SQLColumn("total")
        }

        let source: String
        let code: String
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            source = try row.text(Columns.source)
            code = try row.text(Columns.code)
            total = try row.int(Columns.total)
        }
    }

    /// A figure of the rollups summed by day and currency.
    struct DaySum: SQLRowDecodable {
        enum Columns {
            static let figure = SQLColumn("figure")
            static let day = SQLColumn("day")
            static let currency = SQLColumn("currency")
            static let total = SQLColumn("total")
        }

        let figure: String
        let day: Int64
        let currency: String
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            figure = try row.text(Columns.figure)
            day = try row.int(Columns.day)
            currency = try row.text(Columns.currency)
            total = try row.int(Columns.total)
        }
    }

    /// A figure of the rollups summed by subject (a ledger entry's kind) and currency.
    struct SubjectSum: SQLRowDecodable {
        enum Columns {
            static let figure = SQLColumn("figure")
            static let subject = SQLColumn("subject")
            static let currency = SQLColumn("currency")
            static let total = SQLColumn("total")
        }

        let figure: String
        let subject: String
        let currency: String
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            figure = try row.text(Columns.figure)
            subject = try row.text(Columns.subject)
            currency = try row.text(Columns.currency)
            total = try row.int(Columns.total)
        }
    }

    /// Debt summed by currency: how many positions owe, and how much.
    struct DebtSum: SQLRowDecodable {
        enum Columns {
            static let currency = SQLColumn("currency")
            static let count = SQLColumn("n")
            static let total = SQLColumn("total")
        }

        let currency: String
        let count: Int64
        let total: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            currency = try row.text(Columns.currency)
            count = try row.int(Columns.count)
            total = try row.int(Columns.total)
        }
    }
}
