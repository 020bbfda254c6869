import Crypto
public import Foundation
public import TallyCore
public import TallySQL
import TallyVerify

/// ``TallyStorage`` over any ``SQLDatabase``: the same statements on SQLite and PostgreSQL.
///
/// Its writes run through ``Transactions``, the unit of work it shares with the other stores
/// (``webhooks``). Spends and reservations claim their idempotency key before anything else,
/// so a duplicate waits for the first and replays it; a purchase that loses a race on its
/// UNIQUE constraint is run again and answers as a replay (see
/// docs/decisions/0006-ledger-and-idempotency.md).
public struct SQLStorage: TallyStorage {
    let catalog: TallyCatalog
    let now: @Sendable () -> Date
    /// How writes and reads reach the database, shared with the other stores.
    var transactions: Transactions
    /// What users have, read in any transaction.
    var accounts: Accounts { transactions.accounts }
    var database: any SQLDatabase { transactions.database }

    /// Told the types of the events each write committed (the `/metrics` counter per type).
    var eventsCommitted: (@Sendable ([TallyEventType]) -> Void)? {
        get { transactions.eventsCommitted }
        set { transactions.eventsCommitted = newValue }
    }

    /// Webhook endpoints, their deliveries and the events, in the same database.
    var webhooks: WebhookStore { WebhookStore(transactions: transactions) }
    /// Spends and reservations.
    var spending: SpendingStore { SpendingStore(transactions: transactions, catalog: catalog) }
    /// The subscription and revenue figures.
    var metricsStore: MetricsStore { MetricsStore(transactions: transactions) }

    /// The subscription and revenue figures of a window, read from the rollups.
    public func metrics(_ query: MetricsQuery) async throws -> MetricsReport {
        try await metricsStore.metrics(query)
    }

    /// - Parameters:
    ///   - database: where the data lives; migrate it first.
    ///   - catalog: the products and currencies.
    ///   - now: the clock.
    public init(database: any SQLDatabase, catalog: TallyCatalog, now: @escaping @Sendable () -> Date) {
        self.catalog = catalog
        self.now = now
        transactions = Transactions(database: database, now: now, accounts: Accounts(catalog: catalog))
    }

    var millis: Int64 { Self.millis(now()) }

    static func millis(_ date: Date) -> Int64 { EpochMilliseconds.of(date) }
    static func date(_ millis: Int64) -> Date { EpochMilliseconds.date(millis) }

    /// Runs a write as one unit of work (``Transactions/write(_:)``).
    func write<T: Sendable>(_ work: @escaping @Sendable (WriteContext, Int64) async throws -> T) async throws -> T {
        try await transactions.write(work)
    }

    /// Runs a read on a consistent snapshot.
    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor, Int64) async throws -> T) async throws -> T {
        try await transactions.read(work)
    }

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try TallyAPI.encoder().encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try TallyAPI.decoder().decode(T.self, from: Data(text.utf8))
    }

    static func hash(_ parts: String...) -> String {
        let digest = SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8))
        return digest.withUnsafeBytes { Hex.lowercase($0) }
    }

    // MARK: - Users

    /// Creates a user with the catalog's sign-up grants, or returns the one with this app user id.
    public func createUser(appUserID: String?, tokenHash: String?) async throws -> (User, created: Bool, granted: [Amount]) {
        try await write { executor, time in
            if let appUserID,
                let row = try await executor.query("SELECT * FROM users WHERE app_user_id = \(appUserID)").first
            {
                let user = try Self.user(row)
                if let tokenHash {
                    try await executor.execute(
                        "INSERT INTO user_tokens (token_hash, user_id, created_at) VALUES (\(tokenHash), \(user.id), \(time))")
                }
                return (user, false, [])
            }
            let user = User(id: UUID().uuidString.lowercased(), appUserID: appUserID, appAccountToken: UUID(), createdAt: Self.date(time))
            let token = user.appAccountToken.uuidString.lowercased()
            try await executor.execute(
                "INSERT INTO users (id, app_user_id, app_account_token, created_at) VALUES (\(user.id), \(appUserID), \(token), \(time))")
            if let tokenHash {
                try await executor.execute(
                    "INSERT INTO user_tokens (token_hash, user_id, created_at) VALUES (\(tokenHash), \(user.id), \(time))")
            }
            let ledger = Ledger(executor)
            for grant in catalog.signupGrants {
                try await ledger.grant(user.id, grant.currency, amount: grant.amount, kind: .signup)
                var data = Self.creditsEvent(user: user.id, currency: grant.currency, amount: grant.amount)
                data.appUserID = appUserID
                data.source = "signup"
                try await executor.outbox.emit(.creditsGranted, data)
            }
            return (user, true, catalog.signupGrants)
        }
    }

    /// The user a token hash belongs to.
    public func user(tokenHash: String) async throws -> User? {
        try await read { executor, _ in
            let rows = try await executor.query(
                "SELECT u.* FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(tokenHash)")
            return try rows.first.map(Self.user)
        }
    }

    /// A user by identifier.
    public func user(id: String) async throws -> User? {
        try await read { executor, _ in
            try await executor.query("SELECT * FROM users WHERE id = \(id)").first.map(Self.user)
        }
    }

    static func user(_ row: SQLRow) throws -> User {
        guard let token = UUID(uuidString: try row.text("app_account_token")) else {
            throw SQLDatabaseError(.decoding, "app_account_token is not a UUID")
        }
        return User(
            id: try row.text("id"), appUserID: row.optionalText("app_user_id"), appAccountToken: token,
            createdAt: date(try row.int("created_at")))
    }

    // MARK: - Orders

    /// Creates an order for a product of the catalog.
    public func createOrder(user: User, productID: String) async throws -> Order {
        guard catalog.product(productID) != nil else {
            throw StorageError(.unknownProduct, "no product \(productID) in the catalog")
        }
        return try await write { executor, time in
            let id = UUID().uuidString.lowercased()
            let token = user.appAccountToken.uuidString.lowercased()
            let expiresAt = time + catalog.orderTTLSeconds * 1000
            try await executor.execute(
                """
                INSERT INTO orders (id, user_id, product_id, app_account_token, status, created_at, expires_at, updated_at)
                VALUES (\(id), \(user.id), \(productID), \(token), 'created', \(time), \(expiresAt), \(time))
                """)
            return try await Self.order(executor, user: user, id: id, now: time)
        }
    }

    /// One of the user's orders.
    public func order(user: User, id: String) async throws -> Order {
        try await read { executor, time in try await Self.order(executor, user: user, id: id, now: time) }
    }

    /// Closes an unpaid order as failed.
    public func failOrder(user: User, id: String, reason: String) async throws -> Order {
        // Refused, not cut: what is stored is what the client sent.
        guard reason.unicodeScalars.count <= 200 else { throw StorageError(.invalidRequest, "reason must be at most 200 characters") }
        return try await write { executor, time in
            let order = try await Self.order(executor, user: user, id: id, now: time)
            guard order.status == .created else {
                if order.status == .failed { return order }
                throw StorageError(.orderMismatch, "order \(id) is \(order.status)")
            }
            try await executor.execute(
                "UPDATE orders SET status = 'failed', failure_reason = \(reason), updated_at = \(time) WHERE id = \(id) AND status = 'created'")
            return try await Self.order(executor, user: user, id: id, now: time)
        }
    }

    static func order(_ executor: any SQLExecutor, user: User, id: String, now: Int64) async throws -> Order {
        guard let row = try await executor.query("SELECT * FROM orders WHERE id = \(id) AND user_id = \(user.id)").first else {
            throw StorageError(.notFound, "no order \(id)")
        }
        var status = OrderStatus(rawValue: try row.text("status"))
        let expires = try row.int("expires_at")
        if status == .created, expires <= now { status = .expired }
        return Order(
            orderID: id, productID: try row.text("product_id"),
            appAccountToken: UUID(uuidString: try row.text("app_account_token")) ?? user.appAccountToken,
            status: status, transactionID: row.optionalText("transaction_id"), failureReason: row.optionalText("failure_reason"),
            createdAt: date(try row.int("created_at")), expiresAt: date(expires))
    }
}

// MARK: - Spending, answered by its store

extension SQLStorage {
    /// Spends from the allowance first, then the oldest lots; idempotent by key.
    public func spend(user: User, request: SpendRequest) async throws -> SpendResponse {
        try await spending.spend(user: user, request: request)
    }

    /// Holds an amount for metered use; idempotent by key.
    public func reserve(user: User, request: ReservationRequest) async throws -> Reservation {
        try await spending.reserve(user: user, request: request)
    }

    /// Spends what a held reservation used and returns the rest.
    public func commit(user: User, reservationID: String, used: Int64) async throws -> Reservation {
        try await spending.commit(user: user, reservationID: reservationID, used: used)
    }

    /// Returns a held reservation whole.
    public func release(user: User, reservationID: String) async throws -> Reservation {
        try await spending.release(user: user, reservationID: reservationID)
    }

    /// Releases every held reservation whose time is up.
    public func expireReservations() async throws -> Int {
        try await spending.expireReservations()
    }
}
