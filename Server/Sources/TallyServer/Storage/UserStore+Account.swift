import Foundation
public import TallyCore
import TallySQL

extension UserStore {
    /// Balances, entitlements and subscriptions, read on one snapshot: on PostgreSQL in one
    /// statement for a user without a subscription allowance (one round trip; decision 0035), in
    /// one transaction otherwise.
    public func account(user: User) async throws -> AccountResponse {
        let database = transactions.database
        if database.dialect == .postgres {
            let time = transactions.millis
            if let (balances, access) = try await accounts.summaryInOneStatement(database, user: user.id, time: time) {
                return AccountResponse(
                    userID: user.id, appAccountToken: user.appAccountToken, balances: balances, entitlements: access.entitlements,
                    subscriptions: access.subscriptions)
            }
        }
        return try await read { executor, time in
            // On PostgreSQL the one statement was tried: the user has an allowance now.
            let (balances, access) = try await accounts.summaryStatementByStatement(executor, user: user.id, time: time)
            return AccountResponse(
                userID: user.id, appAccountToken: user.appAccountToken, balances: balances, entitlements: access.entitlements,
                subscriptions: access.subscriptions)
        }
    }

    /// A page of the user's ledger, newest first.
    public func ledger(user: User, currency: String?, kind: String?, limit: Int, cursor: Int64?) async throws -> LedgerPage {
        let dialect = transactions.database.dialect
        return try await read { executor, _ in
            var conditions: [SQL] = []
            if let currency {
                conditions.append("currency = \(currency)")
            }
            if let kind {
                conditions.append("kind = \(LedgerEntryKind(rawValue: kind))")
            }
            if let cursor {
                conditions.append("id < \(cursor)")
            }
            let rows = try await executor.fetchAll(
                LedgerEntryRow.self, LedgerEntryRow.newestOf(user.id, where: conditions, limit: limit + 1, dialect: dialect))
            let entries = rows.prefix(limit).map(\.entry)
            return LedgerPage(entries: entries, nextCursor: rows.count > limit ? entries.last.map { String($0.id) } : nil)
        }
    }
}

/// A row of `ledger_entries`, as the API lists it.
struct LedgerEntryRow: SQLRowDecodable {
    /// The statement of `user`'s entries that meet every one of `conditions`, newest first by id,
    /// at most `limit`: the order of `ledger_user` (user, id), which it reads alone. On
    /// PostgreSQL the user is compared as an array of one: compared with `=`, the planner takes
    /// the user for a constant, sees the primary key in the list's order too, and for a user
    /// whose entries are old walks everyone's backwards (decision 0041).
    static func newestOf(_ user: String, where conditions: [SQL] = [], limit: Int, dialect: SQLDialect) -> SQL {
        let oneUser: SQL = dialect == .postgres ? "user_id = ANY(ARRAY[\(user)])" : "user_id = \(user)"
        let filter = ([oneUser] + conditions).joined(separator: " AND ")
        return "SELECT * FROM ledger_entries WHERE \(filter) ORDER BY user_id DESC, id DESC LIMIT \(limit)"
    }

    enum Columns {
        static let id = SQLColumn("id")
        static let userID = SQLColumn("user_id")
        static let currency = SQLColumn("currency")
        static let kind = SQLColumn("kind")
        static let bucket = SQLColumn("bucket")
        static let amount = SQLColumn("amount")
        static let transactionID = SQLColumn("transaction_id")
        static let reference = SQLColumn("reference")
        static let createdAt = SQLColumn("created_at")
    }

    let entry: LedgerEntry
    /// Whose entry it is.
    let userID: String
    /// When it was written, in epoch milliseconds, as lists page by it.
    let createdAt: Int64

    init(row: SQLRow) throws(SQLDatabaseError) {
        userID = try row.text(Columns.userID)
        createdAt = try row.int(Columns.createdAt)
        entry = LedgerEntry(
            id: try row.int(Columns.id), currency: try row.text(Columns.currency), kind: LedgerEntryKind(rawValue: try row.text(Columns.kind)),
            bucket: LedgerBucket(rawValue: try row.text(Columns.bucket)), amount: try row.int(Columns.amount),
            transactionID: try row.optionalText(Columns.transactionID), reference: try row.optionalText(Columns.reference),
            createdAt: SQLStorage.date(try row.int(Columns.createdAt)))
    }
}
