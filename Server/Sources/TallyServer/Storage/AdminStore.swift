import Foundation
public import TallyCore
import TallySQL

/// The admin API: adjustments of a user's credits, and lists of users, transactions and notifications.
public struct AdminStore: Sendable {
    let transactions: Transactions
    let catalog: TallyCatalog
    var accounts: Accounts { transactions.accounts }

    func write<T: Sendable>(_ work: @escaping @Sendable (WriteContext, Int64) async throws -> T) async throws -> T {
        try await transactions.write(work)
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor, Int64) async throws -> T) async throws -> T {
        try await transactions.read(work)
    }
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
        if let existing = try await executor.query(
            "SELECT request_hash, response_json FROM adjustments WHERE user_id = \(userID) AND idempotency_key = \(idempotencyKey)"
        ).first {
            guard try existing.text("request_hash") == requestHash else {
                throw StorageError(.idempotencyKeyReused, "idempotency_key \(idempotencyKey) was used for another adjustment")
            }
            var first = try SQLStorage.decode(AdminAdjustment.self, try existing.text("response_json"))
            first.replayed = true
            return first
        }
        let ledger = Ledger(executor)
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
        try await read { executor, time in
            guard let row = try await executor.query("SELECT * FROM users WHERE id = \(id)").first else {
                throw StorageError(.notFound, "no user \(id)")
            }
            let user = try UserStore.user(row)
            let (balances, access) = try await accounts.summary(executor, user: id, time: time)
            let ledger = try await executor.query("SELECT * FROM ledger_entries WHERE user_id = \(id) ORDER BY id DESC LIMIT 20")
            return AdminUser(
                userID: id, appUserID: user.appUserID, appAccountToken: user.appAccountToken, createdAt: user.createdAt,
                balances: balances, entitlements: access.entitlements, subscriptions: access.subscriptions,
                recentLedger: try ledger.map(UserStore.ledgerEntry))
        }
    }

    /// Store transactions, newest first, filtered as the query says.
    public func adminTransactions(_ query: AdminTransactionQuery) async throws -> AdminTransactionPage {
        try await read { executor, _ in
            var sql: SQL = "SELECT * FROM store_transactions WHERE 1 = 1"
            func match(_ column: SQLColumn, _ value: String?) {
                guard let value else { return }
                sql += " AND \(column) = \(value)"
            }
            match(SQLColumn("product_kind"), query.type)
            match(SQLColumn("environment"), query.environment)
            match(SQLColumn("product_id"), query.productID)
            match(SQLColumn("user_id"), query.userID)
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
            match(SQLColumn("currency"), query.currency)
            match(SQLColumn("subscription_group"), query.subscriptionGroup)
            // By the day bought or refunded, as the metrics count them.
            if let from = query.purchasedFrom { sql += " AND purchase_date >= \(SQLStorage.millis(from))" }
            if let to = query.purchasedTo { sql += " AND purchase_date < \(SQLStorage.millis(to))" }
            if let from = query.revokedFrom { sql += " AND revocation_event_at >= \(SQLStorage.millis(from))" }
            if let to = query.revokedTo { sql += " AND revocation_event_at < \(SQLStorage.millis(to))" }
            if query.revokedFrom != nil || query.revokedTo != nil { sql += " AND revoked = 1" }
            if let text = query.text {
                // The order's transaction is looked up first, so that every branch of the OR is an
                // equality on an index (PostgreSQL then combines the indexes instead of scanning).
                let ordered = try await executor.query("SELECT transaction_id FROM orders WHERE id = \(text)").first?
                    .optionalText("transaction_id")
                sql += " AND (transaction_id = \(text) OR original_transaction_id = \(text) OR user_id = \(text) OR app_account_token = \(text.lowercased())"
                if let ordered {
                    sql += " OR transaction_id = \(ordered)"
                }
                sql += ")"
            }
            if let cursor = query.cursor {
                // `<=` first: a range of the time index, which the OR alone does not give the planner.
                sql += " AND received_at <= \(cursor.receivedAt) AND (received_at < \(cursor.receivedAt) OR transaction_id < \(cursor.id))"
            }
            sql += " ORDER BY received_at DESC, transaction_id DESC LIMIT \(query.limit + 1)"
            let rows = try await executor.query(sql)
            let transactions = try rows.prefix(query.limit).map(Self.adminTransaction)
            let next =
                rows.count > query.limit
                ? transactions.last.map { AdminCursor(receivedAt: SQLStorage.millis($0.receivedAt), id: $0.transactionID).text } : nil
            return AdminTransactionPage(transactions: transactions, nextCursor: next)
        }
    }

    static func adminTransaction(_ row: SQLRow) throws -> AdminTransaction {
        let revoked = try row.int("revoked") == 1
        return AdminTransaction(
            transactionID: try row.text("transaction_id"), originalTransactionID: try row.text("original_transaction_id"),
            userID: row.optionalText("user_id"), productID: try row.text("product_id"), type: try row.text("product_kind"),
            environment: try row.text("environment"), quantity: try row.int("quantity"),
            status: row.optionalText("user_id") == nil ? "unbound" : revoked ? "revoked" : "granted",
            granted: try row.optionalText("grants_json").map { try SQLStorage.decode([Amount].self, $0) } ?? [],
            purchaseDate: row.optionalInt("purchase_date").map(SQLStorage.date), expiresDate: row.optionalInt("expires_date").map(SQLStorage.date),
            receivedAt: SQLStorage.date(try row.int("received_at")), appAccountToken: row.optionalText("app_account_token"),
            price: row.optionalInt("price"), currency: row.optionalText("currency"), storefront: row.optionalText("storefront"),
            revokedAt: revoked ? row.optionalInt("revocation_event_at").map(SQLStorage.date) : nil,
            revocationReason: revoked ? row.optionalInt("revocation_reason") : nil)
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
            let rows = try await executor.query(sql)
            let notifications = try rows.prefix(limit).map(Self.adminNotification)
            let next =
                rows.count > limit
                ? notifications.last.map { AdminCursor(receivedAt: SQLStorage.millis($0.receivedAt), id: $0.notificationUuid).text } : nil
            return AdminNotificationPage(notifications: notifications, nextCursor: next)
        }
    }

    static func adminNotification(_ row: SQLRow) throws -> AdminNotification {
        AdminNotification(
            notificationUuid: try row.text("notification_uuid"), notificationType: try row.text("notification_type"),
            subtype: row.optionalText("subtype"), transactionID: row.optionalText("transaction_id"),
            outcome: try row.text("outcome"), detail: row.optionalText("detail"), receivedAt: SQLStorage.date(try row.int("received_at")))
    }
}
