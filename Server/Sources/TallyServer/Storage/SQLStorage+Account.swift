import Foundation
public import TallyCore
import TallySQL

extension SQLStorage {
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
            var sql = "SELECT * FROM ledger_entries WHERE user_id = ?"
            var binds: [SQLValue] = [.text(user.id)]
            if let currency {
                sql += " AND currency = ?"
                binds.append(.text(currency))
            }
            if let kind {
                sql += " AND kind = ?"
                binds.append(.text(kind))
            }
            if let cursor {
                sql += " AND id < ?"
                binds.append(.int(cursor))
            }
            sql += " ORDER BY id DESC LIMIT ?"
            binds.append(.int(Int64(limit + 1)))
            let rows = try await executor.query(sql, binds)
            let entries = try rows.prefix(limit).map(Self.ledgerEntry)
            return LedgerPage(entries: entries, nextCursor: rows.count > limit ? entries.last.map { String($0.id) } : nil)
        }
    }

    static func ledgerEntry(_ row: SQLRow) throws -> LedgerEntry {
        LedgerEntry(
            id: try row.int("id"), currency: try row.text("currency"), kind: LedgerEntryKind(rawValue: try row.text("kind")),
            bucket: LedgerBucket(rawValue: try row.text("bucket")),
            amount: try row.int("amount"), transactionID: row.optionalText("transaction_id"), reference: row.optionalText("reference"),
            createdAt: date(try row.int("created_at")))
    }
}
