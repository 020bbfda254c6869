import Foundation
public import TallyCore
import TallySQL

extension SQLStorage {
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
        let requestHash = Self.hash(amount.currency, String(amount.amount), reason)
        guard try await executor.query("SELECT id FROM users WHERE id = ?", [.text(userID)]).first != nil else {
            throw StorageError(.notFound, "no user \(userID)")
        }
        if let existing = try await executor.query(
            "SELECT request_hash, response_json FROM adjustments WHERE user_id = ? AND idempotency_key = ?",
            [.text(userID), .text(idempotencyKey)]
        ).first {
            guard try existing.text("request_hash") == requestHash else {
                throw StorageError(.idempotencyKeyReused, "idempotency_key \(idempotencyKey) was used for another adjustment")
            }
            var first = try Self.decode(AdminAdjustment.self, try existing.text("response_json"))
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
                    "UPDATE positions SET debt = debt + ? WHERE user_id = ? AND currency = ?",
                    [.int(owed), .text(userID), .text(amount.currency)])
                try await ledger.entry(userID, amount.currency, kind: .adjustmentDebt, amount: -owed, reference: reason)
            }
        }
        var data = Self.creditsEvent(user: userID, currency: amount.currency, amount: amount.amount)
        data.reason = reason
        try await executor.outbox.emit(.creditsAdjusted, data)
        let response = AdminAdjustment(
            userID: userID, currency: amount.currency, amount: amount.amount, reason: reason,
            balance: try await accounts.balance(executor, user: userID, currency: amount.currency, time: time), replayed: false)
        try await executor.execute(
            """
            INSERT INTO adjustments (user_id, idempotency_key, request_hash, currency, amount, reason, response_json, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(userID), .text(idempotencyKey), .text(requestHash), .text(amount.currency), .int(amount.amount), .text(reason),
                .text(try Self.encode(response)), .int(time),
            ])
        return response
    }

    /// A user's account and recent ledger, for the admin.
    public func adminUser(id: String) async throws -> AdminUser {
        try await read { executor, time in
            guard let row = try await executor.query("SELECT * FROM users WHERE id = ?", [.text(id)]).first else {
                throw StorageError(.notFound, "no user \(id)")
            }
            let user = try Self.user(row)
            let (balances, access) = try await accounts.summary(executor, user: id, time: time)
            let ledger = try await executor.query("SELECT * FROM ledger_entries WHERE user_id = ? ORDER BY id DESC LIMIT 20", [.text(id)])
            return AdminUser(
                userID: id, appUserID: user.appUserID, appAccountToken: user.appAccountToken, createdAt: user.createdAt,
                balances: balances, entitlements: access.entitlements, subscriptions: access.subscriptions,
                recentLedger: try ledger.map(Self.ledgerEntry))
        }
    }

    /// Store transactions, newest first, filtered as the query says.
    public func adminTransactions(_ query: AdminTransactionQuery) async throws -> AdminTransactionPage {
        try await read { executor, _ in
            var sql = "SELECT * FROM store_transactions WHERE 1 = 1"
            var binds: [SQLValue] = []
            func match(_ column: String, _ value: String?) {
                guard let value else { return }
                sql += " AND \(column) = ?"
                binds.append(.text(value))
            }
            match("product_kind", query.type)
            match("environment", query.environment)
            match("product_id", query.productID)
            match("user_id", query.userID)
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
                sql += " AND received_at >= ?"
                binds.append(.int(Self.millis(from)))
            }
            if let to = query.to {
                sql += " AND received_at < ?"
                binds.append(.int(Self.millis(to)))
            }
            match("currency", query.currency)
            match("subscription_group", query.subscriptionGroup)
            for (column, bound, value) in [
                ("purchase_date", ">=", query.purchasedFrom), ("purchase_date", "<", query.purchasedTo),
                ("revocation_event_at", ">=", query.revokedFrom), ("revocation_event_at", "<", query.revokedTo),
            ] {
                guard let value else { continue }
                sql += " AND \(column) \(bound) ?"
                binds.append(.int(Self.millis(value)))
            }
            if query.revokedFrom != nil || query.revokedTo != nil { sql += " AND revoked = 1" }
            if let text = query.text {
                // The order's transaction is looked up first, so that every branch of the OR is an
                // equality on an index (PostgreSQL then combines the indexes instead of scanning).
                let ordered = try await executor.query("SELECT transaction_id FROM orders WHERE id = ?", [.text(text)]).first?
                    .optionalText("transaction_id")
                sql += " AND (transaction_id = ? OR original_transaction_id = ? OR user_id = ? OR app_account_token = ?"
                binds += [.text(text), .text(text), .text(text), .text(text.lowercased())]
                if let ordered {
                    sql += " OR transaction_id = ?"
                    binds.append(.text(ordered))
                }
                sql += ")"
            }
            if let cursor = query.cursor {
                // `<=` first: a range of the time index, which the OR alone does not give the planner.
                sql += " AND received_at <= ? AND (received_at < ? OR transaction_id < ?)"
                binds += [.int(cursor.receivedAt), .int(cursor.receivedAt), .text(cursor.id)]
            }
            sql += " ORDER BY received_at DESC, transaction_id DESC LIMIT ?"
            binds.append(.int(Int64(query.limit + 1)))
            let rows = try await executor.query(sql, binds)
            let transactions = try rows.prefix(query.limit).map(Self.adminTransaction)
            let next =
                rows.count > query.limit
                ? transactions.last.map { AdminCursor(receivedAt: Self.millis($0.receivedAt), id: $0.transactionID).text } : nil
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
            granted: try row.optionalText("grants_json").map { try Self.decode([Amount].self, $0) } ?? [],
            purchaseDate: row.optionalInt("purchase_date").map(Self.date), expiresDate: row.optionalInt("expires_date").map(Self.date),
            receivedAt: Self.date(try row.int("received_at")), appAccountToken: row.optionalText("app_account_token"),
            price: row.optionalInt("price"), currency: row.optionalText("currency"), storefront: row.optionalText("storefront"),
            revokedAt: revoked ? row.optionalInt("revocation_event_at").map(Self.date) : nil,
            revocationReason: revoked ? row.optionalInt("revocation_reason") : nil)
    }

    /// Notifications received, newest first.
    public func adminNotifications(outcome: String?, limit: Int, cursor: AdminCursor?) async throws -> AdminNotificationPage {
        try await read { executor, _ in
            var sql = "SELECT * FROM notifications WHERE 1 = 1"
            var binds: [SQLValue] = []
            if let outcome {
                sql += " AND outcome = ?"
                binds.append(.text(outcome))
            }
            if let cursor {
                // `<=` first: a range of the time index, which the OR alone does not give the planner.
                sql += " AND received_at <= ? AND (received_at < ? OR notification_uuid < ?)"
                binds += [.int(cursor.receivedAt), .int(cursor.receivedAt), .text(cursor.id)]
            }
            sql += " ORDER BY received_at DESC, notification_uuid DESC LIMIT ?"
            binds.append(.int(Int64(limit + 1)))
            let rows = try await executor.query(sql, binds)
            let notifications = try rows.prefix(limit).map(Self.adminNotification)
            let next =
                rows.count > limit
                ? notifications.last.map { AdminCursor(receivedAt: Self.millis($0.receivedAt), id: $0.notificationUuid).text } : nil
            return AdminNotificationPage(notifications: notifications, nextCursor: next)
        }
    }

    static func adminNotification(_ row: SQLRow) throws -> AdminNotification {
        AdminNotification(
            notificationUuid: try row.text("notification_uuid"), notificationType: try row.text("notification_type"),
            subtype: row.optionalText("subtype"), transactionID: row.optionalText("transaction_id"),
            outcome: try row.text("outcome"), detail: row.optionalText("detail"), receivedAt: Self.date(try row.int("received_at")))
    }
}
