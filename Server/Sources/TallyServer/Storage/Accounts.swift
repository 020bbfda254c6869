import Foundation
import TallyCore
import TallyLedger
import TallySQL

/// What a user has, read in any transaction: balances (with a subscription's allowance),
/// entitlements and subscriptions. The stores answer with it, and every write compares a
/// user's entitlements with it before its commit (``Transactions``).
struct Accounts: Sendable {
    let catalog: TallyCatalog
    /// Where a statement is a round trip (PostgreSQL), a summary is read in one where it can be.
    let dialect: SQLDialect
    /// The products whose subscription gives an allowance, of any currency: found once, not at
    /// every account read.
    private let allowanceProductIDs: [String]
    /// The same by the currency their allowance is in: every balance read asks for its currency's.
    private let allowanceProductIDsByCurrency: [String: [String]]

    init(catalog: TallyCatalog, dialect: SQLDialect) {
        self.catalog = catalog
        self.dialect = dialect
        var all: [String] = []
        var byCurrency: [String: [String]] = [:]
        for product in catalog.products {
            guard let allowance = product.allowance else { continue }
            all.append(product.productID)
            byCurrency[allowance.currency, default: []].append(product.productID)
        }
        allowanceProductIDs = all
        allowanceProductIDsByCurrency = byCurrency
    }

    /// Balances of every currency of the catalog, entitlements and subscriptions.
    func summary(_ executor: any SQLExecutor, user: String, time: Int64) async throws -> ([Balance], Access) {
        // On PostgreSQL one round trip instead of five for a user without an allowance now;
        // on SQLite, where a statement is a call, the five are cheaper than the sorted union.
        if dialect == .postgres,
            let summary = try summary(
                try await executor.query(Self.accountStatement(user: user, time: time, allowanceProducts: allowanceProductIDs)), time: time)
        {
            return summary
        }
        return try await summaryStatementByStatement(executor, user: user, time: time)
    }

    /// The same as ``summary(_:user:time:)`` in five statements (one per part, and the
    /// allowance's window): for a user with an allowance now, and on SQLite.
    func summaryStatementByStatement(_ executor: any SQLExecutor, user: String, time: Int64) async throws -> ([Balance], Access) {
        let rows = try await executor.fetchAll(
            CurrencyPosition.self, "SELECT \(CurrencyPosition.Columns.currency), \(CreditPosition.selection) \(Self.positionRows(user))")
        var allowances: [String: Balance.AllowanceState] = [:]
        for currency in catalog.currencies.map(\.code) {
            allowances[currency] = try await allowanceState(executor, user: user, currency: currency, time: time)
        }
        return (balances(rows, allowances: allowances), try await access(executor, user: user, time: time))
    }

    /// The same as ``summary(_:user:time:)`` in one statement, for the many users without a
    /// subscription allowance now; nil for one with it, whose window takes a second statement on
    /// the same snapshot. Read by ``SQLDatabase/readStatement(_:)``: on PostgreSQL one round trip
    /// and no transaction, against seven (`BEGIN`, five statements, `COMMIT`).
    func summaryInOneStatement(_ database: any SQLDatabase, user: String, time: Int64) async throws -> ([Balance], Access)? {
        try summary(try await database.readStatement(Self.accountStatement(user: user, time: time, allowanceProducts: allowanceProductIDs)), time: time)
    }

    /// The summary from the rows of ``accountStatement(user:time:allowanceProducts:)``; nil for
    /// a user with an allowance now.
    private func summary(_ rows: [SQLRow], time: Int64) throws(SQLDatabaseError) -> ([Balance], Access)? {
        guard let parts = try AccountParts(rows) else { return nil }
        return (balances(parts.positions, allowances: [:]), access(owned: parts.owned, subscribed: parts.subscribed, granted: parts.granted, time: time))
    }

    /// The rows of ``accountStatement(user:time:allowanceProducts:)`` by part. (Sorted outside
    /// the async function that reads them: Swift 6.3's optimizer crashed on a typed throw in
    /// its loop.)
    private struct AccountParts {
        var positions: [CurrencyPosition] = []
        var owned: [OwnedRow] = []
        var subscribed: [SubscriptionRow] = []
        var granted: [GrantedRow] = []

        /// Nil when a row says the user has an allowance now.
        init?(_ rows: [SQLRow]) throws(SQLDatabaseError) {
            for row in rows {
                switch try row.text(Accounts.part) {
                case "allowance": return nil
                case "granted": granted.append(try GrantedRow(row: row))
                case "owned": owned.append(try OwnedRow(row: row))
                case "position": positions.append(try CurrencyPosition(row: row))
                case "subscribed": subscribed.append(try SubscriptionRow(row: row))
                case let part: throw SQLDatabaseError(.other, "the account's statement answered a row of no part it has: \(part)")
                }
            }
        }
    }

    /// Which statement of ``accountStatement(user:time:allowanceProducts:)`` a row comes from.
    fileprivate static let part = SQLColumn("part")

    /// Positions, owned products, subscriptions with their renewal info and granted entitlements
    /// (the statements of ``summary(_:user:time:)``) as one `UNION ALL`, each row with its `part`
    /// and every column of the others null; an `allowance` row when the user has a subscription
    /// that gives one now.
    static func accountStatement(user: String, time: Int64, allowanceProducts: [String]) -> SQL {
        // Typed nulls: PostgreSQL gives each column of a UNION one type.
        let text: SQL = "CAST(NULL AS TEXT)", number: SQL = "CAST(NULL AS BIGINT)"
        var sql: SQL = """
            SELECT 'position' AS part, currency, available, held, debt, \(text) AS product_id, \(text) AS original_transaction_id,
                \(number) AS purchase_date, \(number) AS expires_date, \(number) AS revoked, \(number) AS auto_renew,
                \(number) AS in_billing_retry, \(number) AS grace_expires, \(number) AS expires_at, \(text) AS entitlement
            \(positionRows(user))
            UNION ALL
            SELECT 'owned', \(text), \(number), \(number), \(number), product_id, original_transaction_id, purchase_date,
                expires_date, revoked, \(number), \(number), \(number), \(number), \(text)
            \(ownedRows(user))
            UNION ALL
            SELECT 'subscribed', \(text), \(number), \(number), \(number), t.product_id, t.original_transaction_id,
                t.purchase_date, t.expires_date, t.revoked, r.auto_renew, r.in_billing_retry, r.grace_expires, \(number), \(text)
            \(subscribedRows(user))
            UNION ALL
            SELECT 'granted', \(text), \(number), \(number), \(number), \(text), \(text), \(number),
                \(number), \(number), \(number), \(number), \(number), expires_at, entitlement
            \(grantedRows(user))
            """
        if !allowanceProducts.isEmpty {
            sql += """

                UNION ALL
                SELECT * FROM (SELECT 'allowance' AS part, \(text) AS currency, \(number) AS available, \(number) AS held,
                    \(number) AS debt, product_id, original_transaction_id, purchase_date, expires_date, revoked, \(number) AS auto_renew,
                    \(number) AS in_billing_retry, \(number) AS grace_expires, \(number) AS expires_at, \(text) AS entitlement
                \(Allowances.SourceRow.rows(user: user, productIDs: allowanceProducts, time: time)) LIMIT 1) AS a
                """
        }
        // The subscriptions' rows in the order ``access(owned:subscribed:granted:time:)`` reads them.
        sql += "\nORDER BY part, original_transaction_id, expires_date"
        return sql
    }

    /// Each currency of the catalog's balance, from the positions there are and the allowances.
    private func balances(_ rows: [CurrencyPosition], allowances: [String: Balance.AllowanceState]) -> [Balance] {
        var positions: [String: CreditPosition] = [:]
        for row in rows {
            positions[row.currency] = row.position
        }
        return catalog.currencies.map(\.code).map { currency in
            Self.balance(currency, positions[currency] ?? CreditPosition(available: 0, held: 0, debt: 0), allowance: allowances[currency])
        }
    }

    /// A currency's balance from its position and allowance: spendable is what is available and
    /// what is free of the allowance.
    private static func balance(_ currency: String, _ position: CreditPosition, allowance: Balance.AllowanceState?) -> Balance {
        let free = allowance.map { $0.granted - $0.used - $0.held } ?? 0
        return Balance(
            currency: currency, available: position.available, held: position.held, debt: position.debt, allowance: allowance,
            spendable: position.available + free)
    }

    /// The current allowance window, read-only: a window not made yet shows its full amount.
    func allowanceState(_ executor: any SQLExecutor, user: String, currency: String, time: Int64) async throws -> Balance.AllowanceState? {
        guard let productIDs = allowanceProductIDsByCurrency[currency] else { return nil }
        guard
            let source = try await executor.fetchOne(
                Allowances.SourceRow.self, Allowances.SourceRow.query(user: user, productIDs: productIDs, time: time)),
            let allowance = catalog.product(source.productID)?.allowance
        else { return nil }
        let (start, end) = Allowances.window(containing: time, anchor: source.purchaseDate, limit: source.expiresDate, per: allowance.per)
        typealias Window = Allowances.WindowRow
        let window = try await executor.fetchOne(
            Window.self,
            """
            SELECT \(Window.Columns.windowEnd), \(Window.Columns.granted), \(Window.Columns.used), \(Window.Columns.held) FROM allowance_windows \
            WHERE original_transaction_id = \(source.originalTransactionID) AND currency = \(currency) AND window_start = \(start)
            """)
        return Balance.AllowanceState(
            granted: window?.granted ?? allowance.amount, used: window?.used ?? 0, held: window?.held ?? 0, periodEnd: SQLStorage.date(end))
    }

    /// What a user may use, and their subscriptions.
    struct Access: Sendable {
        var entitlements: [Entitlement]
        var subscriptions: [SubscriptionInfo]
    }

    func entitlements(_ executor: any SQLExecutor, user: String, time: Int64) async throws -> [Entitlement] {
        try await access(executor, user: user, time: time).entitlements
    }

    /// Each subscription's state, from its latest transaction that was not revoked and its
    /// newest renewal info: the same whatever order they arrived in.
    func subscriptions(_ executor: any SQLExecutor, user: String, time: Int64) async throws -> [SubscriptionInfo] {
        try await access(executor, user: user, time: time).subscriptions
    }

    // Where each part of an account comes from, for the statements one by one (``summary(_:user:time:)``)
    // and all in one (``accountStatement(user:time:allowanceProducts:)``).

    private static func positionRows(_ user: String) -> SQL { "FROM positions WHERE user_id = \(user)" }

    private static func ownedRows(_ user: String) -> SQL {
        "FROM store_transactions WHERE user_id = \(user) AND granted = 1 AND revoked = 0 AND product_kind IN ('non_consumable', 'non_renewing')"
    }

    private static func subscribedRows(_ user: String) -> SQL {
        """
        FROM store_transactions t LEFT JOIN renewal_infos r ON r.original_transaction_id = t.original_transaction_id
        WHERE t.user_id = \(user) AND t.product_kind = 'auto_renewable'
        """
    }

    private static func grantedRows(_ user: String) -> SQL { "FROM granted_entitlements WHERE user_id = \(user) AND revoked_at IS NULL" }

    /// Entitlements and subscriptions: what the user owns, their subscriptions' transactions
    /// with their renewal info, and what operators granted.
    func access(_ executor: any SQLExecutor, user: String, time: Int64) async throws -> Access {
        // Three statements: one UNION ALL of them, sorted as one, halved GET /v1/me on SQLite
        // (4,000 against 10,000 requests/s in `tally bench server`).
        let owned = try await executor.fetchAll(
            OwnedRow.self, "SELECT product_id, original_transaction_id, purchase_date, expires_date, revoked \(Self.ownedRows(user))")
        let subscribed = try await executor.fetchAll(
            SubscriptionRow.self,
            """
            SELECT t.product_id, t.original_transaction_id, t.purchase_date, t.expires_date, t.revoked,
                r.auto_renew, r.in_billing_retry, r.grace_expires
            \(Self.subscribedRows(user))
            ORDER BY t.original_transaction_id, t.expires_date
            """)
        let granted = try await executor.fetchAll(GrantedRow.self, "SELECT expires_at, entitlement \(Self.grantedRows(user))")
        return access(owned: owned, subscribed: subscribed, granted: granted, time: time)
    }

    /// Entitlements and subscriptions from their rows.
    private func access(owned: [OwnedRow], subscribed: [SubscriptionRow], granted: [GrantedRow], time: Int64) -> Access {
        var result: [String: Entitlement] = [:]
        func offer(_ entitlement: Entitlement) {
            if let existing = result[entitlement.id] {
                // An active one wins; among equals, the later expiry (nil is for ever).
                let better =
                    (entitlement.active && !existing.active)
                    || (entitlement.active == existing.active && (entitlement.expiresAt ?? .distantFuture) > (existing.expiresAt ?? .distantFuture))
                if !better { return }
            }
            result[entitlement.id] = entitlement
        }
        for row in owned {
            guard let product = catalog.product(row.productID) else { continue }
            var expires: Date?
            if product.kind == .nonRenewing {
                let start = row.purchaseDate ?? 0
                expires = SQLStorage.date(start + Int64(product.durationDays ?? 0) * 86_400_000)
            }
            for id in product.entitlements {
                offer(
                    Entitlement(
                        id: id, active: expires.map { $0 > SQLStorage.date(time) } ?? true, productID: product.productID,
                        expiresAt: expires, inGracePeriod: false, willRenew: nil))
            }
        }
        var byOriginal: [String: [SubscriptionRow]] = [:]
        var order: [String] = []
        for row in subscribed {
            if byOriginal[row.originalTransactionID] == nil { order.append(row.originalTransactionID) }
            byOriginal[row.originalTransactionID, default: []].append(row)
        }
        for row in granted {
            // Granted by an operator until a date; the product is named `granted`.
            offer(
                Entitlement(
                    id: row.entitlement, active: row.expiresAt > time, productID: Self.grantedProductID,
                    expiresAt: SQLStorage.date(row.expiresAt), inGracePeriod: false, willRenew: false))
        }
        let subscriptions = order.map { original in
            let all = byOriginal[original]!
            let alive = all.filter(\.unrevoked)
            let latest = alive.last ?? all.last!
            let expires = latest.expiresDate
            let grace = latest.graceExpires
            let status: SubscriptionState
            if alive.isEmpty {
                status = .revoked
            } else if let expires, expires > time {
                status = .active
            } else if let grace, grace > time {
                status = .gracePeriod
            } else if latest.inBillingRetry == 1 {
                status = .billingRetry
            } else {
                status = .expired
            }
            return SubscriptionInfo(
                originalTransactionID: original, productID: latest.productID, status: status,
                expiresAt: expires.map(SQLStorage.date), willRenew: latest.autoRenew.map { $0 == 1 },
                gracePeriodExpiresAt: grace.map(SQLStorage.date))
        }
        for subscription in subscriptions {
            guard let product = catalog.product(subscription.productID) else { continue }
            let active = subscription.status.grantsAccess
            for id in product.entitlements {
                offer(
                    Entitlement(
                        id: id, active: active, productID: product.productID,
                        expiresAt: subscription.gracePeriodExpiresAt.flatMap { grace in
                            subscription.status == .gracePeriod ? grace : nil
                        } ?? subscription.expiresAt,
                        inGracePeriod: subscription.status == .gracePeriod, willRenew: subscription.willRenew))
            }
        }
        return Access(entitlements: result.values.sorted { $0.id < $1.id }, subscriptions: subscriptions)
    }

    /// The product id of an entitlement an operator granted.
    static let grantedProductID = "granted"

    /// One currency's balance, inside a write.
    /// - Parameter position: the position, when the write knows it already.
    func balance(_ executor: any SQLExecutor, user: String, currency: String, time: Int64, position known: CreditPosition? = nil) async throws -> Balance {
        let position: CreditPosition
        if let known { position = known } else { position = try await CreditLedger.position(executor, user, currency) }
        return Self.balance(currency, position, allowance: try await allowanceState(executor, user: user, currency: currency, time: time))
    }

    /// The ids of the entitlements active for `user` at `time`.
    func activeEntitlements(_ executor: any SQLExecutor, user: String, time: Int64) async throws -> Set<String> {
        Set(try await entitlements(executor, user: user, time: time).filter(\.active).map(\.id))
    }

    // MARK: - Rows

    /// A row of `positions` with its currency.
    private struct CurrencyPosition: SQLRowDecodable {
        enum Columns {
            static let currency = SQLColumn("currency")
        }

        let currency: String
        let position: CreditPosition

        init(row: SQLRow) throws(SQLDatabaseError) {
            currency = try row.text(Columns.currency)
            position = try CreditPosition(row: row)
        }
    }

    /// A product the user owns outright (non-consumable or non-renewing), with its purchase date.
    private struct OwnedRow: SQLRowDecodable {
        enum Columns {
            static let productID = SQLColumn("product_id")
            static let purchaseDate = SQLColumn("purchase_date")
        }

        let productID: String
        let purchaseDate: Int64?

        init(row: SQLRow) throws(SQLDatabaseError) {
            productID = try row.text(Columns.productID)
            purchaseDate = try row.optionalInt(Columns.purchaseDate)
        }
    }

    /// A subscription's transaction with its renewal info (null where there is none).
    private struct SubscriptionRow: SQLRowDecodable {
        enum Columns {
            static let productID = SQLColumn("product_id")
            static let originalTransactionID = SQLColumn("original_transaction_id")
            static let expiresDate = SQLColumn("expires_date")
            static let revoked = SQLColumn("revoked")
            static let autoRenew = SQLColumn("auto_renew")
            static let inBillingRetry = SQLColumn("in_billing_retry")
            static let graceExpires = SQLColumn("grace_expires")
        }

        let productID: String
        let originalTransactionID: String
        let expiresDate: Int64?
        /// Whether `revoked` is 0; anything else, or no integer, counts as revoked.
        let unrevoked: Bool
        let autoRenew: Int64?
        let inBillingRetry: Int64?
        let graceExpires: Int64?

        init(row: SQLRow) throws(SQLDatabaseError) {
            productID = try row.text(Columns.productID)
            originalTransactionID = try row.text(Columns.originalTransactionID)
            expiresDate = try row.optionalInt(Columns.expiresDate)
            unrevoked = !(try row.bool(Columns.revoked))
            autoRenew = try row.optionalInt(Columns.autoRenew)
            inBillingRetry = try row.optionalInt(Columns.inBillingRetry)
            graceExpires = try row.optionalInt(Columns.graceExpires)
        }
    }

    /// An entitlement an operator granted, until its expiry.
    private struct GrantedRow: SQLRowDecodable {
        typealias Columns = ConsoleStore.GrantRow.Columns

        let expiresAt: Int64
        let entitlement: String

        init(row: SQLRow) throws(SQLDatabaseError) {
            expiresAt = try row.int(Columns.expiresAt)
            entitlement = try row.text(Columns.entitlement)
        }
    }
}
