import TallyCore
import TallySQL

/// The ledger's rows, each kind read in one place through its column constants.
extension OnDeviceLedger {
    /// A row of `ledger_balances`, or a sum of entries in the same shape.
    struct BalanceRow: SQLRowDecodable {
        enum Columns {
            static let currency = SQLColumn("currency")
            static let available = SQLColumn("available")
            static let held = SQLColumn("held")
            static let debt = SQLColumn("debt")
        }

        let currency: String
        let available: Int64
        let held: Int64
        let debt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            currency = try row.text(Columns.currency)
            available = try row.int(Columns.available)
            held = try row.int(Columns.held)
            debt = try row.int(Columns.debt)
        }

        /// The balance; all that is available can be spent on the device.
        var balance: Balance {
            Balance(currency: currency, available: available, held: held, debt: debt, spendable: available)
        }
    }

    /// A lot with what is left of it: `ledger_lots` and the sum of its balance entries as `remaining`.
    struct LotRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let transactionID = SQLColumn("transaction_id")
            static let currency = SQLColumn("currency")
            static let amount = SQLColumn("amount")
            static let acquiredAt = SQLColumn("acquired_at")
            static let remaining = SQLColumn("remaining")
        }

        /// The columns every lot query selects, from `ledger_lots l` and its entries `e`.
        static let selection: SQL = "l.id, l.transaction_id, l.currency, l.amount, l.acquired_at, COALESCE(SUM(e.amount), 0) AS remaining"

        let id: Int64
        let transactionID: String?
        let currency: String
        let amount: Int64
        let acquiredAt: Int64
        let remaining: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.int(Columns.id)
            transactionID = try row.optionalText(Columns.transactionID)
            currency = try row.text(Columns.currency)
            amount = try row.int(Columns.amount)
            acquiredAt = try row.int(Columns.acquiredAt)
            remaining = try row.int(Columns.remaining)
        }
    }

    /// A currency and an amount: what a lot granted.
    struct AmountRow: SQLRowDecodable {
        enum Columns {
            static let currency = SQLColumn("currency")
            static let amount = SQLColumn("amount")
        }

        let amount: Amount

        init(row: SQLRow) throws(SQLDatabaseError) {
            amount = Amount(currency: try row.text(Columns.currency), amount: try row.int(Columns.amount))
        }
    }

    /// The id SQLite gave the last row inserted on this connection.
    struct InsertedRow: SQLRowDecodable {
        static let id = SQLColumn("id")
        static let query: SQL = "SELECT last_insert_rowid() AS \(id)"

        let id: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.int(Self.id)
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

    /// What one consumption took from one lot: a spend entry with its lot.
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
