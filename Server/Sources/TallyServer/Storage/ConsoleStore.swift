public import Foundation
public import TallyCore
import TallyLedger
import TallySQL

/// The web console's data: operators, sessions, the audit log, and the queries behind its pages.
/// Its adjustments go through the admin's (``AdminStore``), audited in the same transaction.
public struct ConsoleStore: TransactionalStore {
    let admin: AdminStore
    var transactions: Transactions { admin.transactions }
    var catalog: TallyCatalog { admin.catalog }
    /// Whose access an entitlement granted here changes.
    var purchases: PurchaseStore { PurchaseStore(transactions: transactions, catalog: catalog) }
}

extension ConsoleStore {
    // MARK: - Operators and sessions

    /// Adds an operator, or sets an existing one's password hash and role.
    public func saveOperator(name: String, passwordHash: String, role: ConsoleRole) async throws {
        try await write { executor, time in
            let before = try await executor.fetchOne(OperatorRow.self, "SELECT \(OperatorRow.selection) FROM console_operators WHERE name = \(name)")
            try await executor.execute(
                """
                INSERT INTO console_operators (name, password_hash, role, created_at, updated_at) VALUES (\(name), \(passwordHash), \(role), \(time), \(time))
                ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, role = excluded.role, updated_at = excluded.updated_at
                """)
            // A new password or role starts from a new sign-in.
            try await executor.execute("DELETE FROM console_sessions WHERE actor = \(Self.operatorActor(name))")
            try await Self.appendAudit(
                executor, time: time, actor: "cli", action: "operator_saved", target: Self.operatorActor(name),
                before: before.map { "{\"role\":\"\($0.role)\"}" }, after: "{\"role\":\"\(role.rawValue)\"}",
                detail: "password set")
        }
    }

    /// Removes an operator and ends their sessions; false when there was none.
    public func removeOperator(name: String) async throws -> Bool {
        try await write { executor, time in
            guard let row = try await executor.fetchOne(OperatorRow.self, "SELECT \(OperatorRow.selection) FROM console_operators WHERE name = \(name)") else {
                return false
            }
            try await executor.execute("DELETE FROM console_sessions WHERE actor = \(Self.operatorActor(name))")
            try await executor.execute("DELETE FROM console_operators WHERE name = \(name)")
            try await Self.appendAudit(
                executor, time: time, actor: "cli", action: "operator_removed", target: Self.operatorActor(name),
                before: "{\"role\":\"\(row.role)\"}", after: nil, detail: nil)
            return true
        }
    }

    /// Every operator's name and role.
    public func operators() async throws -> [(name: String, role: ConsoleRole)] {
        let rows = try await read { executor, _ in
            try await executor.fetchAll(OperatorRow.self, "SELECT \(OperatorRow.selection) FROM console_operators ORDER BY name")
        }
        return rows.map { ($0.name, ConsoleRole(rawValue: $0.role) ?? .readOnly) }
    }

    /// An operator's password hash and role.
    public func consoleOperator(name: String) async throws -> (passwordHash: String, role: ConsoleRole)? {
        let row = try await read { executor, _ in
            try await executor.fetchOne(
                OperatorCredentials.self,
                "SELECT \(OperatorCredentials.Columns.passwordHash), \(OperatorCredentials.Columns.role) FROM console_operators WHERE name = \(name)")
        }
        guard let row else { return nil }
        return (row.passwordHash, ConsoleRole(rawValue: row.role) ?? .readOnly)
    }

    /// The actor an operator's session and audit entries name.
    static func operatorActor(_ name: String) -> String { "operator:\(name)" }

    /// Opens a session (the cookie's SHA-256) and writes `sign_in` to the audit log; removes expired sessions.
    public func openSession(tokenHash: String, actor: String, role: ConsoleRole, csrfToken: String, expiresAt: Date, keyHash: String?) async throws {
        try await write { executor, time in
            try await executor.execute("DELETE FROM console_sessions WHERE expires_at <= \(time)")
            try await executor.execute(
                """
                INSERT INTO console_sessions (token_hash, actor, role, csrf_token, key_hash, created_at, expires_at) \
                VALUES (\(tokenHash), \(actor), \(role), \(csrfToken), \(keyHash), \(time), \(SQLStorage.millis(expiresAt)))
                """)
            try await Self.appendAudit(executor, time: time, actor: actor, action: "sign_in", target: nil, before: nil, after: nil, detail: role.rawValue)
        }
    }

    /// The session of a cookie (its SHA-256), while it has not expired.
    public func session(tokenHash: String) async throws -> ConsoleSession? {
        try await read { executor, time in
            guard
                let row = try await executor.fetchOne(
                    SessionRow.self, "SELECT * FROM console_sessions WHERE token_hash = \(tokenHash) AND expires_at > \(time)"),
                let role = ConsoleRole(rawValue: row.role)
            else { return nil }
            return ConsoleSession(
                actor: row.actor, role: role, csrfToken: row.csrfToken, expiresAt: SQLStorage.date(row.expiresAt), keyHash: row.keyHash)
        }
    }

    /// Ends a session and writes `sign_out`.
    public func closeSession(tokenHash: String) async throws {
        try await write { executor, time in
            guard let row = try await executor.fetchOne(SessionRow.self, "SELECT * FROM console_sessions WHERE token_hash = \(tokenHash)") else {
                return
            }
            try await executor.execute("DELETE FROM console_sessions WHERE token_hash = \(tokenHash)")
            try await Self.appendAudit(
                executor, time: time, actor: row.actor, action: "sign_out", target: nil, before: nil, after: nil, detail: nil)
        }
    }

    // MARK: - Audit

    /// Appends to the audit log.
    public func audit(actor: String, action: String, target: String?, before: String?, after: String?, detail: String?) async throws {
        try await write { executor, time in
            try await Self.appendAudit(executor, time: time, actor: actor, action: action, target: target, before: before, after: after, detail: detail)
        }
    }

    static func appendAudit(
        _ executor: any SQLExecutor, time: Int64, actor: String, action: String, target: String?, before: String?, after: String?,
        detail: String?
    ) async throws {
        try await executor.execute(
            """
            INSERT INTO console_audit (at, actor, action, target, before_text, after_text, detail) \
            VALUES (\(time), \(actor), \(action), \(target), \(before), \(after), \(detail))
            """)
    }

    /// The audit log, newest first.
    public func auditLog(limit: Int, before: Int64?) async throws -> ConsoleAuditPage {
        try await read { executor, _ in
            var sql: SQL = "SELECT * FROM console_audit"
            if let before {
                sql += " WHERE id < \(before)"
            }
            sql += " ORDER BY id DESC LIMIT \(limit + 1)"
            let rows = try await executor.fetchAll(AuditRow.self, sql)
            let entries = rows.prefix(limit).map(\.entry)
            return ConsoleAuditPage(entries: entries, next: rows.count > limit ? entries.last?.id : nil)
        }
    }

    // MARK: - Actions

    /// An adjustment made from the console: ``AdminStore/adjust(userID:amount:reason:idempotencyKey:)``
    /// with its audit entry (the position before and after) in the same transaction.
    /// - Throws: ``StorageError``, as the admin's adjustment refuses.
    public func consoleAdjust(
        actor: String, userID: String, amount: Amount, reason: String, idempotencyKey: String
    ) async throws
        -> AdminAdjustment
    {
        try admin.checkAdjustment(amount: amount, reason: reason, idempotencyKey: idempotencyKey)
        return try await write { executor, time in
            // Locked first, so that nothing changes the position between "before" and the adjustment.
            if try await executor.query("SELECT id FROM users WHERE id = \(userID)").first != nil {
                try await executor.ledger.lock(userID, amount.currency)
            }
            let before = try await Self.positionText(executor, user: userID, currency: amount.currency)
            let result = try await admin.adjust(executor, time: time, userID: userID, amount: amount, reason: reason, idempotencyKey: idempotencyKey)
            if !result.replayed {
                try await Self.appendAudit(
                    executor, time: time, actor: actor, action: "adjust", target: userID, before: before,
                    after: try await Self.positionText(executor, user: userID, currency: amount.currency),
                    detail: "\(amount.amount > 0 ? "+" : "")\(amount.amount) \(amount.currency): \(reason)")
            }
            return result
        }
    }

    /// A position as compact JSON, for the audit log.
    static func positionText(_ executor: any SQLExecutor, user: String, currency: String) async throws -> String {
        let position = try await CreditLedger.position(executor, user, currency)
        return "{\"currency\":\"\(currency)\",\"available\":\(position.available),\"held\":\(position.held),\"debt\":\(position.debt)}"
    }

    /// Grants an entitlement of the catalog until a date; idempotent by key; audited.
    public func grantEntitlement(
        actor: String, userID: String, entitlement: String, until: Date, reason: String, idempotencyKey: String
    ) async throws -> GrantedEntitlement {
        guard catalog.products.contains(where: { $0.entitlements.contains(entitlement) }) else {
            throw StorageError(.invalidRequest, "no product of the catalog gives the entitlement \(entitlement)")
        }
        guard !reason.isEmpty, reason.unicodeScalars.count <= 500 else { throw StorageError(.invalidRequest, "reason must be 1 to 500 characters") }
        guard !idempotencyKey.isEmpty, idempotencyKey.unicodeScalars.count <= 128 else {
            throw StorageError(.invalidIdempotencyKey, "idempotency_key must be 1 to 128 characters")
        }
        let expires = SQLStorage.millis(until)
        return try await write { executor, time in
            guard try await executor.query("SELECT id FROM users WHERE id = \(userID)").first != nil else {
                throw StorageError(.notFound, "no user \(userID)")
            }
            if let existing = try await executor.fetchOne(
                GrantRow.self, "SELECT * FROM granted_entitlements WHERE user_id = \(userID) AND idempotency_key = \(idempotencyKey)")
            {
                var first = existing.grant
                guard first.entitlement == entitlement, SQLStorage.millis(first.expiresAt) == expires, first.reason == reason else {
                    throw StorageError(.idempotencyKeyReused, "idempotency_key \(idempotencyKey) was used for another grant")
                }
                first.replayed = true
                return first
            }
            guard expires > time else { throw StorageError(.invalidRequest, "the grant must end in the future") }
            let id = RandomID.uuid()
            try await purchases.touchEntitlements(executor, user: userID, time: time, actor: actor)
            try await executor.execute(
                """
                INSERT INTO granted_entitlements (id, user_id, entitlement, expires_at, reason, granted_by, idempotency_key, created_at)
                VALUES (\(id), \(userID), \(entitlement), \(expires), \(reason), \(actor), \(idempotencyKey), \(time))
                """)
            try await Self.appendAudit(
                executor, time: time, actor: actor, action: "grant_entitlement", target: userID, before: nil,
                after: "{\"entitlement\":\"\(entitlement)\",\"until\":\"\(Self.isoText(expires))\",\"grant\":\"\(id)\"}", detail: reason)
            return GrantedEntitlement(
                id: id, userID: userID, entitlement: entitlement, expiresAt: SQLStorage.date(expires), reason: reason, grantedBy: actor,
                createdAt: SQLStorage.date(time), revokedAt: nil, revokedBy: nil, replayed: false)
        }
    }

    /// Ends a granted entitlement now; audited. Revoking one already revoked changes nothing.
    public func revokeEntitlement(actor: String, userID: String, grantID: String) async throws -> GrantedEntitlement {
        try await write { executor, time in
            guard
                let row = try await executor.fetchOne(GrantRow.self, "SELECT * FROM granted_entitlements WHERE id = \(grantID) AND user_id = \(userID)")
            else { throw StorageError(.notFound, "no grant \(grantID) for user \(userID)") }
            var grant = row.grant
            guard grant.revokedAt == nil else {
                grant.replayed = true
                return grant
            }
            try await purchases.touchEntitlements(executor, user: userID, time: time, actor: actor)
            let changed = try await executor.execute(
                "UPDATE granted_entitlements SET revoked_at = \(time), revoked_by = \(actor) WHERE id = \(grantID) AND revoked_at IS NULL")
            guard changed == 1 else {
                // Another revocation got there first.
                guard let now = try await executor.fetchOne(GrantRow.self, "SELECT * FROM granted_entitlements WHERE id = \(grantID)") else {
                    throw StorageError(.notFound, "no grant \(grantID) for user \(userID)")
                }
                var first = now.grant
                first.replayed = true
                return first
            }
            try await Self.appendAudit(
                executor, time: time, actor: actor, action: "revoke_entitlement", target: userID,
                before: "{\"entitlement\":\"\(grant.entitlement)\",\"until\":\"\(Self.isoText(SQLStorage.millis(grant.expiresAt)))\",\"grant\":\"\(grantID)\"}",
                after: "{\"entitlement\":\"\(grant.entitlement)\",\"revoked\":\"\(Self.isoText(time))\"}", detail: nil)
            grant.revokedAt = SQLStorage.date(time)
            grant.revokedBy = actor
            return grant
        }
    }

    /// The entitlements granted to a user, newest first.
    public func grantedEntitlements(userID: String) async throws -> [GrantedEntitlement] {
        try await read { executor, _ in
            try await executor.fetchAll(GrantRow.self, "SELECT * FROM granted_entitlements WHERE user_id = \(userID) ORDER BY created_at DESC, id")
                .map(\.grant)
        }
    }

    /// A time as ISO 8601 with milliseconds, UTC.
    static func isoText(_ millis: Int64) -> String { ConsoleFormat.time(SQLStorage.date(millis)) }

    // MARK: - Figures

    /// Adds refused pieces of signed data (`source`: purchase, receipt, notification; the
    /// verifier's code; how many) to the current minute's counts.
    public func countVerificationFailures(_ counts: [(source: String, code: String, count: Int64)]) async throws {
        try await write { executor, time in
            for (source, code, count) in counts where count > 0 {
                try await executor.execute(
                    """
                    INSERT INTO verification_failures (minute, source, code, count) VALUES (\(time / 60_000), \(source), \(code), \(count))
                    ON CONFLICT (minute, source, code) DO UPDATE SET count = verification_failures.count + excluded.count
                    """)
            }
        }
    }

    /// Signed data refused over `from ..< to`, by source (in `currency`) and code (in `kind`).
    public func verificationFailures(from: Date, to: Date) async throws -> [ConsoleOverview.Movement] {
        try await read { executor, _ in try await Self.verificationFailures(executor, from: SQLStorage.millis(from), to: SQLStorage.millis(to)) }
    }

    /// Refusals counted in the minutes that overlap `from ..< to` (milliseconds), by source and code.
    static func verificationFailures(_ executor: any SQLExecutor, from: Int64, to: Int64) async throws -> [ConsoleOverview.Movement] {
        try await executor.fetchAll(
            FailureSum.self,
            """
            SELECT source, code, SUM(count) AS total FROM verification_failures
            WHERE minute >= \(from / 60_000) AND minute < \((to + 59_999) / 60_000) GROUP BY source, code ORDER BY source, code
            """
        ).map { ConsoleOverview.Movement(currency: $0.source, kind: $0.code, count: $0.total, amount: $0.total) }
    }

    /// The overview's figures over the UTC days the window touches, read from the rollups
    /// (`metric_days`), so that its cost does not grow with the ledger.
    public func overview(from: Date, to: Date, environment: String?) async throws -> ConsoleOverview {
        let start = SQLStorage.millis(from)
        let end = SQLStorage.millis(to)
        let firstDay = MetricContributions.day(start)
        let lastDay = max(firstDay, MetricContributions.day(end - 1))
        // The store's figures of one environment when given (the ledger's are the users' whatever paid).
        let only: SQL = environment.map { " AND environment = \($0)" } ?? " AND environment <> ''"
        let store = [MetricFigure.purchases, .revenue, .refunds, .refunded].map(\.rawValue)
        return try await read { executor, _ in
            var byCurrency: [String: (purchases: Int64, revenue: Int64, refunds: Int64, refunded: Int64)] = [:]
            var purchasesByDay: [Int64: Int64] = [:]
            var refundsByDay: [Int64: Int64] = [:]
            for row in try await executor.fetchAll(
                DaySum.self,
                """
                SELECT figure, day, currency, CAST(SUM(value) AS BIGINT) AS total FROM metric_days
                WHERE figure IN (\(list: store)) AND day >= \(firstDay) AND day <= \(lastDay)\(only)
                GROUP BY figure, day, currency
                """)
            {
                let (total, currency) = (row.total, row.currency)
                let day = row.day
                var line = byCurrency[currency] ?? (0, 0, 0, 0)
                switch MetricFigure(rawValue: row.figure) {
                case .purchases?:
                    line.purchases += total
                    purchasesByDay[day, default: 0] += total
                case .revenue?: line.revenue += total
                case .refunds?:
                    line.refunds += total
                    refundsByDay[day, default: 0] += total
                default: line.refunded += total
                }
                byCurrency[currency] = line
            }
            let currencies = byCurrency.keys.sorted()
            let revenue = currencies.compactMap { currency -> ConsoleOverview.Revenue? in
                let line = byCurrency[currency]!
                guard line.purchases > 0 else { return nil }
                return .init(currency: currency.isEmpty ? nil : currency, storefront: nil, count: line.purchases, milliunits: line.revenue)
            }
            let refunded = currencies.compactMap { currency -> ConsoleOverview.Revenue? in
                let line = byCurrency[currency]!
                guard line.refunds > 0 else { return nil }
                return .init(currency: currency.isEmpty ? nil : currency, storefront: nil, count: line.refunds, milliunits: line.refunded)
            }
            var movements: [String: ConsoleOverview.Movement] = [:]
            for row in try await executor.fetchAll(
                SubjectSum.self,
                """
                SELECT figure, subject, currency, CAST(SUM(value) AS BIGINT) AS total FROM metric_days
                WHERE environment = '' AND figure IN (\(list: [MetricFigure.ledgerAmount, .ledgerEntries].map(\.rawValue)))
                AND day >= \(firstDay) AND day <= \(lastDay)
                GROUP BY figure, subject, currency
                """)
            {
                let currency = row.currency
                let kind = row.subject
                let key = currency + "\u{1F}" + kind
                var movement = movements[key] ?? .init(currency: currency, kind: kind, count: 0, amount: 0)
                if row.figure == MetricFigure.ledgerEntries.rawValue {
                    movement.count += row.total
                } else {
                    movement.amount += row.total
                }
                movements[key] = movement
            }
            let debt = try await executor.fetchAll(
                DebtSum.self, "SELECT currency, COUNT(*) AS n, SUM(debt) AS total FROM positions WHERE debt > 0 GROUP BY currency ORDER BY currency"
            ).map { ConsoleOverview.Movement(currency: $0.currency, kind: "debt", count: $0.count, amount: $0.total) }
            let failures = try await Self.verificationFailures(executor, from: start, to: end)
            let days = (firstDay...lastDay).map { day in
                ConsoleOverview.Day(
                    start: SQLStorage.date(day * MetricContributions.millisPerDay), purchases: purchasesByDay[day] ?? 0, refunds: refundsByDay[day] ?? 0)
            }
            return ConsoleOverview(
                from: SQLStorage.date(firstDay * MetricContributions.millisPerDay), to: SQLStorage.date((lastDay + 1) * MetricContributions.millisPerDay),
                purchases: revenue.reduce(0) { $0 + $1.count }, revenue: revenue, refunds: refunded.reduce(0) { $0 + $1.count },
                refunded: refunded, movements: movements.keys.sorted().map { movements[$0]! }.filter { $0.count > 0 }, debt: debt,
                verificationFailures: failures, days: days)
        }
    }

    // MARK: - Lists

    /// Ledger entries, newest first: by time, or one user's by id.
    public func ledgerEntries(_ query: ConsoleLedgerQuery) async throws -> ConsoleLedgerPage {
        let dialect = transactions.database.dialect
        return try await read { executor, _ in
            let rows = try await executor.fetchAll(LedgerEntryRow.self, Self.ledgerStatement(query, dialect: dialect))
            let page = rows.prefix(query.limit).map { ConsoleLedgerPage.Row(userID: $0.userID, entry: $0.entry) }
            let last = rows.prefix(query.limit).last.map { ConsoleLedgerQuery.Position(createdAt: $0.createdAt, id: $0.entry.id) }
            return ConsoleLedgerPage(rows: page, next: rows.count > query.limit ? last : nil)
        }
    }

    /// The statement of a page of the console's ledger, one entry more than the page holds.
    static func ledgerStatement(_ query: ConsoleLedgerQuery, dialect: SQLDialect) -> SQL {
        var conditions: [SQL] = []
        typealias Columns = LedgerEntryRow.Columns
        for (column, value) in [(Columns.currency, query.currency), (Columns.kind, query.kind)] {
            guard let value else { continue }
            conditions.append("\(column) = \(value)")
        }
        if let from = query.from {
            conditions.append("created_at >= \(SQLStorage.millis(from))")
        }
        if let to = query.to {
            conditions.append("created_at < \(SQLStorage.millis(to))")
        }
        if let userID = query.userID {
            // One user's entries go by id, as the API lists them: the list reads that user's
            // rows alone whatever else is filtered, and the ledger keeps one index by user.
            if let before = query.before {
                conditions.append("id < \(before.id)")
            }
            return LedgerEntryRow.newestOf(userID, where: conditions, limit: query.limit + 1, dialect: dialect)
        }
        if let before = query.before {
            // `<=` first: a range of the time index, which the OR alone does not give the planner.
            conditions.append("created_at <= \(before.createdAt) AND (created_at < \(before.createdAt) OR id < \(before.id))")
        }
        let filter: SQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return "SELECT * FROM ledger_entries" + filter + " ORDER BY created_at DESC, id DESC LIMIT \(query.limit + 1)"
    }

    /// What happened to a user, newest first, at most `limit` events.
    public func timeline(userID: String, limit: Int) async throws -> [ConsoleEvent] {
        let dialect = transactions.database.dialect
        return try await read { executor, _ in
            var events: [ConsoleEvent] = []
            for row in try await executor.fetchAll(
                AdminTransactionRow.self, "SELECT * FROM store_transactions WHERE user_id = \(userID) ORDER BY received_at DESC LIMIT \(limit)")
            {
                let transaction = row.transaction
                let price = transaction.price.map { " \(ConsoleFormat.milliunits($0)) \(transaction.currency ?? "")" } ?? ""
                events.append(
                    ConsoleEvent(
                        kind: "purchase", at: transaction.purchaseDate ?? transaction.receivedAt, summary: transaction.productID + price,
                        transactionID: transaction.transactionID, environment: transaction.environment, receivedAt: transaction.receivedAt))
                if let revokedAt = transaction.revokedAt {
                    events.append(
                        ConsoleEvent(
                            kind: "refund", at: revokedAt, summary: transaction.productID + price, transactionID: transaction.transactionID,
                            revocationReason: transaction.revocationReason))
                }
            }
            for row in try await executor.fetchAll(
                AdminNotificationRow.self,
                """
                SELECT * FROM notifications WHERE original_transaction_id IN
                    (SELECT DISTINCT original_transaction_id FROM store_transactions WHERE user_id = \(userID))
                ORDER BY received_at DESC LIMIT \(limit)
                """)
            {
                let notification = row.notification
                events.append(
                    ConsoleEvent(
                        kind: "notification", at: notification.receivedAt,
                        summary: notification.notificationType + (notification.subtype.map { " / \($0)" } ?? ""),
                        transactionID: notification.transactionID, detail: notification.outcome + (notification.detail.map { ": \($0)" } ?? "")))
            }
            for row in try await executor.fetchAll(
                LedgerEntryRow.self, LedgerEntryRow.newestOf(userID, limit: limit, dialect: dialect))
            {
                let entry = row.entry
                events.append(
                    ConsoleEvent(
                        kind: "ledger", at: entry.createdAt, summary: "\(entry.kind.rawValue) \(entry.amount > 0 ? "+" : "")\(entry.amount) \(entry.currency)",
                        transactionID: entry.transactionID, detail: entry.reference))
            }
            for row in try await executor.fetchAll(
                GrantRow.self, "SELECT * FROM granted_entitlements WHERE user_id = \(userID) ORDER BY created_at DESC LIMIT \(limit)")
            {
                let grant = row.grant
                events.append(
                    ConsoleEvent(
                        kind: "grant", at: grant.createdAt, summary: grant.entitlement, transactionID: nil,
                        detail: "\(grant.grantedBy): \(grant.reason)", until: grant.expiresAt))
                if let revokedAt = grant.revokedAt {
                    events.append(
                        ConsoleEvent(kind: "revoke", at: revokedAt, summary: grant.entitlement, transactionID: nil, detail: grant.revokedBy))
                }
            }
            if let user = try await executor.fetchOne(UserRow.self, "SELECT * FROM users WHERE id = \(userID)")?.user {
                events.append(ConsoleEvent(kind: "signup", at: user.createdAt, summary: userID, transactionID: nil, detail: nil))
            }
            // Newest first; among events of the same millisecond, a stable order.
            return Array(
                events.sorted { ($0.at, $0.kind, $0.summary) > ($1.at, $1.kind, $1.summary) }.prefix(limit))
        }
    }

    /// One notification with its payload.
    public func notification(uuid: String) async throws -> ConsoleNotification? {
        try await read { executor, _ in
            try await executor.fetchOne(NotificationRow.self, "SELECT * FROM notifications WHERE notification_uuid = \(uuid)")?.notification
        }
    }

    /// The users a search text names, each once, best first: by user id, then by app account
    /// token (both in any case), then by app user id (exactly).
    public func findUsers(_ text: String) async throws -> [ConsoleUserMatch] {
        let lowered = text.lowercased()
        let users = try await read { executor, _ in
            try await executor.fetchAll(
                UserRow.self, "SELECT * FROM users WHERE id = \(lowered) OR app_account_token = \(lowered) OR app_user_id = \(text)"
            ).map(\.user)
        }
        // Each user once, by the best field they match: user id, then app account token, then app user id.
        let matches = users.map { user -> ConsoleUserMatch in
            let id = user.id
            let token = user.appAccountToken.uuidString.lowercased()
            let field: ConsoleUserMatch.Field = id == lowered ? .userID : token == lowered ? .appAccountToken : .appUserID
            return ConsoleUserMatch(userID: id, field: field)
        }
        return matches.sorted { ($0.field, $0.userID) < ($1.field, $1.userID) }
    }
}
