import Foundation
public import TallyCore
import TallySQL

extension UserStore {
    /// Balances, entitlements and subscriptions, read in one transaction.
    public func account(user: User) async throws -> AccountResponse {
        try await read { executor, time in
            let (balances, access) = try await accounts.summary(executor, user: user.id, time: time)
            return AccountResponse(
                userID: user.id, appAccountToken: user.appAccountToken, balances: balances, entitlements: access.entitlements,
                subscriptions: access.subscriptions)
        }
    }

    /// A page of the user's ledger, newest first.
    public func ledger(user: User, currency: String?, kind: String?, limit: Int, cursor: Int64?) async throws -> LedgerPage {
        try await read { executor, _ in
            var sql: SQL = "SELECT * FROM ledger_entries WHERE user_id = \(user.id)"
            if let currency {
                sql += " AND currency = \(currency)"
            }
            if let kind {
                sql += " AND kind = \(LedgerEntryKind(rawValue: kind))"
            }
            if let cursor {
                sql += " AND id < \(cursor)"
            }
            sql += " ORDER BY id DESC LIMIT \(limit + 1)"
            let rows = try await executor.query(sql)
            let entries = try rows.prefix(limit).map(Self.ledgerEntry)
            return LedgerPage(entries: entries, nextCursor: rows.count > limit ? entries.last.map { String($0.id) } : nil)
        }
    }

    static func ledgerEntry(_ row: SQLRow) throws -> LedgerEntry {
        LedgerEntry(
            id: try row.int("id"), currency: try row.text("currency"), kind: LedgerEntryKind(rawValue: try row.text("kind")),
            bucket: LedgerBucket(rawValue: try row.text("bucket")),
            amount: try row.int("amount"), transactionID: row.optionalText("transaction_id"), reference: row.optionalText("reference"),
            createdAt: SQLStorage.date(try row.int("created_at")))
    }
}
