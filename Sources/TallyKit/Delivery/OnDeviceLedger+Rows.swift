import TallyCore
import TallyLedger
import TallySQL

/// The ledger's rows, each kind read in one place through its column constants.
extension OnDeviceLedger {
    /// A currency's position.
    struct BalanceRow: SQLRowDecodable {
        enum Columns {
            static let currency = SQLColumn("currency")
        }

        let currency: String
        let position: CreditPosition

        init(row: SQLRow) throws(SQLDatabaseError) {
            currency = try row.text(Columns.currency)
            position = try CreditPosition(row: row)
        }

        var balance: Balance { OnDeviceLedger.balance(currency, position) }
    }

    /// A lot with what is left of it, and the purchase date of the purchase that granted it.
    struct LotRow: SQLRowDecodable {
        enum Columns {
            static let transactionID = SQLColumn("transaction_id")
            static let currency = SQLColumn("currency")
            static let granted = SQLColumn("granted")
            static let remaining = SQLColumn("remaining")
            static let acquiredAt = SQLColumn("acquired_at")
        }

        /// The columns every lot query selects, from `lots l` and its purchase `p`.
        static let selection: SQL = """
            l.\(Columns.transactionID), l.\(Columns.currency), l.\(Columns.granted), l.\(Columns.remaining),
            COALESCE(p.purchase_date, l.created_at) AS \(Columns.acquiredAt)
            """

        let transactionID: String?
        let currency: String
        let granted: Int64
        let remaining: Int64
        let acquiredAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            transactionID = try row.optionalText(Columns.transactionID)
            currency = try row.text(Columns.currency)
            granted = try row.int(Columns.granted)
            remaining = try row.int(Columns.remaining)
            acquiredAt = try row.int(Columns.acquiredAt)
        }
    }

    /// A currency and an amount: what a lot granted.
    struct AmountRow: SQLRowDecodable {
        enum Columns {
            static let currency = SQLColumn("currency")
            static let granted = SQLColumn("granted")
        }

        let amount: Amount

        init(row: SQLRow) throws(SQLDatabaseError) {
            amount = Amount(currency: try row.text(Columns.currency), amount: try row.int(Columns.granted))
        }
    }

    /// A row of `ledger_spends`: a spend, or what a reservation used.
    struct SpendRow: SQLRowDecodable {
        enum Columns {
            static let idempotencyKey = SQLColumn("idempotency_key")
            static let currency = SQLColumn("currency")
            static let amount = SQLColumn("amount")
            static let reference = SQLColumn("reference")
            static let createdAt = SQLColumn("created_at")
        }

        let idempotencyKey: String
        let currency: String
        let amount: Int64
        let reference: String?
        let createdAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            idempotencyKey = try row.text(Columns.idempotencyKey)
            currency = try row.text(Columns.currency)
            amount = try row.int(Columns.amount)
            reference = try row.optionalText(Columns.reference)
            createdAt = try row.int(Columns.createdAt)
        }
    }

    /// A row of `ledger_reservations`.
    struct ReservationRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let currency = SQLColumn("currency")
            static let amount = SQLColumn("amount")
            static let status = SQLColumn("status")
            static let reference = SQLColumn("reference")
            static let used = SQLColumn("used")
            static let expiresAt = SQLColumn("expires_at")
        }

        let id: String
        let currency: String
        let amount: Int64
        let status: ReservationStatus
        let reference: String?
        let used: Int64?
        let expiresAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.text(Columns.id)
            currency = try row.text(Columns.currency)
            amount = try row.int(Columns.amount)
            status = try row.code(ReservationStatus.self, Columns.status)
            reference = try row.optionalText(Columns.reference)
            used = try row.optionalInt(Columns.used)
            expiresAt = try row.int(Columns.expiresAt)
        }
    }

    /// What one consumption took from one lot: a take, with its lot.
    struct SourceRow: SQLRowDecodable {
        enum Columns {
            static let operationID = SQLColumn("operation_id")
            static let transactionID = SQLColumn("transaction_id")
            static let acquiredAt = SQLColumn("acquired_at")
            static let taken = SQLColumn("taken")
        }

        let operationID: String?
        let transactionID: String?
        let acquiredAt: Int64
        let taken: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            operationID = try row.optionalText(Columns.operationID)
            transactionID = try row.optionalText(Columns.transactionID)
            acquiredAt = try row.int(Columns.acquiredAt)
            taken = try row.int(Columns.taken)
        }
    }

    /// A product's unrevoked purchases: how many, the latest expiry and the latest purchase.
    struct OwnershipRow: SQLRowDecodable {
        enum Columns {
            static let owned = SQLColumn("owned")
            static let expires = SQLColumn("expires")
            static let latest = SQLColumn("latest")
        }

        let owned: Int64
        let expires: Int64?
        let latest: Int64?

        init(row: SQLRow) throws(SQLDatabaseError) {
            owned = try row.int(Columns.owned)
            expires = try row.optionalInt(Columns.expires)
            latest = try row.optionalInt(Columns.latest)
        }
    }

    /// A product's renewal info: whether it will renew, and when a billing grace period ends.
    struct RenewalRow: SQLRowDecodable {
        enum Columns {
            static let willRenew = SQLColumn("will_renew")
            static let grace = SQLColumn("grace")
        }

        let willRenew: Int64?
        let grace: Int64?

        init(row: SQLRow) throws(SQLDatabaseError) {
            willRenew = try row.optionalInt(Columns.willRenew)
            grace = try row.optionalInt(Columns.grace)
        }
    }
}
