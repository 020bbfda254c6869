import Foundation
public import TallyCore
import TallyLedger
import TallySQL

/// The admin API: adjustments of a user's credits, and lists of users, transactions and notifications.
public struct AdminStore: TransactionalStore {
    let transactions: Transactions
    let catalog: TallyCatalog
}

extension AdminStore {
    /// Credits or takes back an amount for the admin; idempotent by key.
    public func adjust(userID: String, amount: Amount, reason: String, idempotencyKey: String) async throws -> AdminAdjustment {
        try checkAdjustment(amount: amount, reason: reason, idempotencyKey: idempotencyKey)
        return try await write { executor, time in
            try await adjust(executor, time: time, userID: userID, amount: amount, reason: reason, idempotencyKey: idempotencyKey)
        }
    }

    /// Checks an adjustment's input before anything is written.
    func checkAdjustment(amount: Amount, reason: String, idempotencyKey: String) throws(StorageError) {
        guard catalog.hasCurrency(amount.currency) else { throw StorageError(.unknownCurrency, "no currency \(amount.currency)") }
        // `magnitude`, not `abs`: abs(Int64.min) traps.
        guard amount.amount != 0, amount.amount.magnitude <= UInt64(TallyCatalog.maximumAmount) else {
            throw StorageError(.invalidAmount, "amount must be non-zero and at most \(TallyCatalog.maximumAmount) in size")
        }
        guard !idempotencyKey.isEmpty, idempotencyKey.unicodeScalars.count <= 128 else {
            throw StorageError(.invalidIdempotencyKey, "idempotency_key must be 1 to 128 characters")
        }
        guard !reason.isEmpty, reason.unicodeScalars.count <= 500 else { throw StorageError(.invalidRequest, "reason must be 1 to 500 characters") }
    }

    /// An adjustment inside a write, checked already.
    func adjust(
        _ executor: WriteContext, time: Int64, userID: String, amount: Amount, reason: String, idempotencyKey: String
    ) async throws -> AdminAdjustment {
        let requestHash = SQLStorage.hash(amount.currency, String(amount.amount), reason)
        guard try await executor.query("SELECT id FROM users WHERE id = \(userID)").first != nil else {
            throw StorageError(.notFound, "no user \(userID)")
        }
        if let existing = try await executor.fetchOne(
            StoredAnswer.self,
            """
            SELECT \(StoredAnswer.Columns.requestHash), \(StoredAnswer.Columns.responseJSON) FROM adjustments \
            WHERE user_id = \(userID) AND idempotency_key = \(idempotencyKey)
            """)
        {
            guard existing.requestHash == requestHash else {
                throw StorageError(.idempotencyKeyReused, "idempotency_key \(idempotencyKey) was used for another adjustment")
            }
            var first = try SQLStorage.decode(AdminAdjustment.self, existing.responseJSON)
            first.replayed = true
            return first
        }
        let ledger = executor.ledger
        if amount.amount > 0 {
            try await ledger.grant(userID, amount.currency, amount: amount.amount, kind: .adjustment, reference: reason)
        } else {
            // A correction downwards takes what is available; the rest is owed, as after a refund.
            let position = try await ledger.lock(userID, amount.currency)
            let taken = min(position.available, -amount.amount)
            _ = try await ledger.spend(userID, amount.currency, amount: taken, kind: .adjustment, reference: reason)
            let owed = -amount.amount - taken
            if owed > 0 {
                try await executor.execute(
                    "UPDATE positions SET debt = debt + \(owed) WHERE user_id = \(userID) AND currency = \(amount.currency)")
                try await ledger.entry(userID, amount.currency, kind: .adjustmentDebt, amount: -owed, reference: reason)
            }
        }
        var data = SQLStorage.creditsEvent(user: userID, currency: amount.currency, amount: amount.amount)
        data.reason = reason
        try await executor.outbox.emit(.creditsAdjusted, data)
        let response = AdminAdjustment(
            userID: userID, currency: amount.currency, amount: amount.amount, reason: reason,
            balance: try await accounts.balance(executor, user: userID, currency: amount.currency, time: time), replayed: false)
        try await executor.execute(
            """
            INSERT INTO adjustments (user_id, idempotency_key, request_hash, currency, amount, reason, response_json, created_at)
            VALUES (\(userID), \(idempotencyKey), \(requestHash), \(amount.currency), \(amount.amount), \(reason), \(try SQLStorage.encode(response)), \(time))
            """)
        return response
    }

    /// A user's account and recent ledger, for the admin.
    public func adminUser(id: String) async throws -> AdminUser {
        let dialect = transactions.database.dialect
        return try await read { executor, time in
            guard let user = try await executor.fetchOne(UserRow.self, "SELECT * FROM users WHERE id = \(id)")?.user else {
                throw StorageError(.notFound, "no user \(id)")
            }
            let (balances, access) = try await accounts.summary(executor, user: id, time: time)
            let ledger = try await executor.fetchAll(LedgerEntryRow.self, LedgerEntryRow.newestOf(id, limit: 20, dialect: dialect))
            return AdminUser(
                userID: id, appUserID: user.appUserID, appAccountToken: user.appAccountToken, createdAt: user.createdAt,
                balances: balances, entitlements: access.entitlements, subscriptions: access.subscriptions,
                recentLedger: ledger.map(\.entry))
        }
    }

    /// Store transactions, newest first, filtered as the query says.
    public func adminTransactions(_ query: AdminTransactionQuery) async throws -> AdminTransactionPage {
        try await read { executor, _ in
            // The order's transaction is looked up first, so that every branch of the text
            // search's OR is an equality on an index (PostgreSQL then combines the indexes).
            var ordered: String?
            if let text = query.text {
                typealias Order = PurchaseStore.OrderRow.Columns
                ordered = try await executor.query("SELECT \(Order.transactionID) FROM orders WHERE id = \(text)").first?
                    .optionalText(Order.transactionID)
            }
            let sql = try Self.transactionsStatement(query, orderedTransactionID: ordered, dialect: transactions.database.dialect)
            let rows = try await executor.fetchAll(AdminTransactionRow.self, sql)
            let transactions = rows.prefix(query.limit).map(\.transaction)
            let next =
                rows.count > query.limit
                ? transactions.last.map { AdminCursor(receivedAt: SQLStorage.millis($0.receivedAt), id: $0.transactionID).text } : nil
            return AdminTransactionPage(transactions: transactions, nextCursor: next)
        }
    }

    /// The statement of an admin list of transactions; `orderedTransactionID` is the
    /// transaction of the order whose id the text search names, if there is one.
    static func transactionsStatement(_ query: AdminTransactionQuery, orderedTransactionID: String?, dialect: SQLDialect) throws -> SQL {
        var sql: SQL = "SELECT * FROM store_transactions WHERE 1 = 1"
        func match(_ column: SQLColumn, _ value: String?) {
            guard let value else { return }
            sql += " AND \(column) = \(value)"
        }
        match(StoreTransaction.Columns.productKind, query.type)
        match(StoreTransaction.Columns.environment, query.environment)
        if let productID = query.productID {
            // One user's rows are fewer than one product's, but SQLite prefers the product's
            // index for the list's order: `|| ''` keeps it on the user's index. PostgreSQL
            // weighs its statistics and keeps the index of both.
            let column = StoreTransaction.Columns.productID
            sql += query.userID != nil && dialect == .sqlite ? " AND \(column) || '' = \(productID)" : " AND \(column) = \(productID)"
        }
        match(StoreTransaction.Columns.userID, query.userID)
        switch query.status {
        case "granted"?: sql += " AND granted = 1 AND revoked = 0"
        case "revoked"?: sql += " AND revoked = 1"
        case "refunded"?: sql += " AND revoked = 1 AND revocation_reason IS NOT NULL"
        case "unbound"?: sql += " AND user_id IS NULL"
        case nil: break
        case let other?: throw StorageError(.invalidRequest, "status must be granted, revoked, refunded or unbound, not \(other)")
        }
        // By the time received, the list's own order, so that a range is one index's range.
        if let from = query.from {
            sql += " AND received_at >= \(SQLStorage.millis(from))"
        }
        if let to = query.to {
            sql += " AND received_at < \(SQLStorage.millis(to))"
        }
        match(StoreTransaction.Columns.currency, query.currency)
        match(StoreTransaction.Columns.subscriptionGroup, query.subscriptionGroup)
        // By the day bought or refunded, as the metrics count them.
        if let from = query.purchasedFrom { sql += " AND purchase_date >= \(SQLStorage.millis(from))" }
        if let to = query.purchasedTo { sql += " AND purchase_date < \(SQLStorage.millis(to))" }
        if let from = query.revokedFrom { sql += " AND revocation_event_at >= \(SQLStorage.millis(from))" }
        if let to = query.revokedTo { sql += " AND revocation_event_at < \(SQLStorage.millis(to))" }
        if query.revokedFrom != nil || query.revokedTo != nil { sql += " AND revoked = 1" }
        if let text = query.text {
            sql += " AND (transaction_id = \(text) OR original_transaction_id = \(text) OR user_id = \(text) OR app_account_token = \(text.lowercased())"
            if let ordered = orderedTransactionID {
                sql += " OR transaction_id = \(ordered)"
            }
            sql += ")"
        }
        if let cursor = query.cursor {
            // `<=` first: a range of the time index, which the OR alone does not give the planner.
            sql += " AND received_at <= \(cursor.receivedAt) AND (received_at < \(cursor.receivedAt) OR transaction_id < \(cursor.id))"
        }
        sql += " ORDER BY received_at DESC, transaction_id DESC LIMIT \(query.limit + 1)"
        return sql
    }

    /// Notifications received, newest first.
    public func adminNotifications(outcome: String?, limit: Int, cursor: AdminCursor?) async throws -> AdminNotificationPage {
        try await read { executor, _ in
            var sql: SQL = "SELECT * FROM notifications WHERE 1 = 1"
            if let outcome {
                sql += " AND outcome = \(outcome)"
            }
            if let cursor {
                // `<=` first: a range of the time index, which the OR alone does not give the planner.
                sql += " AND received_at <= \(cursor.receivedAt) AND (received_at < \(cursor.receivedAt) OR notification_uuid < \(cursor.id))"
            }
            sql += " ORDER BY received_at DESC, notification_uuid DESC LIMIT \(limit + 1)"
            let rows = try await executor.fetchAll(AdminNotificationRow.self, sql)
            let notifications = rows.prefix(limit).map(\.notification)
            let next =
                rows.count > limit
                ? notifications.last.map { AdminCursor(receivedAt: SQLStorage.millis($0.receivedAt), id: $0.notificationUuid).text } : nil
            return AdminNotificationPage(notifications: notifications, nextCursor: next)
        }
    }
}

/// A row of `store_transactions` as the admin lists it.
struct AdminTransactionRow: SQLRowDecodable {
    let transaction: AdminTransaction

    init(row: SQLRow) throws(SQLDatabaseError) {
        typealias Columns = StoreTransaction.Columns
        let revoked = try row.bool(Columns.revoked)
        let userID = try row.optionalText(Columns.userID)
        transaction = AdminTransaction(
            transactionID: try row.text(Columns.transactionID), originalTransactionID: try row.text(Columns.originalTransactionID),
            userID: userID, productID: try row.text(Columns.productID), type: try row.text(Columns.productKind),
            environment: try row.text(Columns.environment), quantity: try row.int(Columns.quantity),
            status: userID == nil ? "unbound" : revoked ? "revoked" : "granted",
            granted: try StoreTransaction.amounts(row, Columns.grantsJSON) ?? [],
            purchaseDate: try row.optionalInt(Columns.purchaseDate).map(SQLStorage.date),
            expiresDate: try row.optionalInt(Columns.expiresDate).map(SQLStorage.date),
            receivedAt: SQLStorage.date(try row.int(Columns.receivedAt)), appAccountToken: try row.optionalText(Columns.appAccountToken),
            price: try row.optionalInt(Columns.price), currency: try row.optionalText(Columns.currency),
            storefront: try row.optionalText(Columns.storefront),
            revokedAt: revoked ? try row.optionalInt(Columns.revocationEventAt).map(SQLStorage.date) : nil,
            revocationReason: revoked ? try row.optionalInt(Columns.revocationReason) : nil)
    }
}

/// A row of `notifications` as the admin lists it.
struct AdminNotificationRow: SQLRowDecodable {
    /// The columns of `notifications`.
    enum Columns {
        static let notificationUUID = SQLColumn("notification_uuid")
        static let notificationType = SQLColumn("notification_type")
        static let subtype = SQLColumn("subtype")
        static let transactionID = SQLColumn("transaction_id")
        static let originalTransactionID = SQLColumn("original_transaction_id")
        static let environment = SQLColumn("environment")
        static let outcome = SQLColumn("outcome")
        static let detail = SQLColumn("detail")
        static let jws = SQLColumn("jws")
        static let signedDate = SQLColumn("signed_date")
        static let receivedAt = SQLColumn("received_at")
    }

    let notification: AdminNotification

    init(row: SQLRow) throws(SQLDatabaseError) {
        notification = AdminNotification(
            notificationUuid: try row.text(Columns.notificationUUID), notificationType: try row.text(Columns.notificationType),
            subtype: try row.optionalText(Columns.subtype), transactionID: try row.optionalText(Columns.transactionID),
            outcome: try row.text(Columns.outcome), detail: try row.optionalText(Columns.detail),
            receivedAt: SQLStorage.date(try row.int(Columns.receivedAt)))
    }
}
