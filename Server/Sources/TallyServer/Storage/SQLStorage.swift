import Crypto
public import Foundation
public import TallyCore
public import TallySQL
import TallyVerify

/// The server's stores over one ``SQLDatabase``: the same statements on SQLite and PostgreSQL.
///
/// Each store answers for one aggregate and writes through the unit of work they share
/// (``Transactions``): ``users`` (users, their tokens, what they have), ``purchases`` (orders,
/// store transactions, their grants and refunds), ``spending`` (spends and reservations),
/// ``notifications`` (App Store notifications and Apple's queues), ``admin``, ``console``,
/// ``webhooks`` and ``metrics``. Spends and reservations claim their idempotency key before
/// anything else, so a duplicate waits for the first and replays it; a purchase that loses a race
/// on its UNIQUE constraint is run again and answers as a replay (see
/// docs/decisions/0006-ledger-and-idempotency.md).
public struct SQLStorage: Sendable {
    let catalog: TallyCatalog
    /// How writes and reads reach the database, shared by the stores.
    var transactions: Transactions
    var database: any SQLDatabase { transactions.database }

    /// Told the types of the events each write committed (the `/metrics` counter per type).
    /// Set it before taking a store: each store is taken with the unit of work as it is then.
    var eventsCommitted: (@Sendable ([TallyEventType]) -> Void)? {
        get { transactions.eventsCommitted }
        set { transactions.eventsCommitted = newValue }
    }

    /// Users, their tokens, and their balances, entitlements and ledger.
    public var users: UserStore { UserStore(transactions: transactions, catalog: catalog) }
    /// Orders and store transactions: purchases, their grants, refunds and their reversals.
    public var purchases: PurchaseStore { PurchaseStore(transactions: transactions, catalog: catalog) }
    /// Spends and reservations.
    public var spending: SpendingStore { SpendingStore(transactions: transactions, catalog: catalog) }
    /// App Store notifications, what Apple reports, and the queues of work for Apple's API.
    public var notifications: NotificationStore { NotificationStore(purchases: purchases) }
    /// The admin API's adjustments and lists.
    public var admin: AdminStore { AdminStore(transactions: transactions, catalog: catalog) }
    /// The web console's operators, sessions, audit log and pages.
    public var console: ConsoleStore { ConsoleStore(admin: admin) }
    /// Webhook endpoints, their deliveries and the events, in the same database.
    var webhooks: WebhookStore { WebhookStore(transactions: transactions) }
    /// The subscription and revenue figures, read from the rollups.
    public var metrics: MetricsStore { MetricsStore(transactions: transactions) }

    /// - Parameters:
    ///   - database: where the data lives; migrate it first.
    ///   - catalog: the products and currencies.
    ///   - now: the clock.
    public init(database: any SQLDatabase, catalog: TallyCatalog, now: @escaping @Sendable () -> Date) {
        self.catalog = catalog
        transactions = Transactions(database: database, now: now, accounts: Accounts(catalog: catalog, dialect: database.dialect))
    }

    static func millis(_ date: Date) -> Int64 { EpochMilliseconds.of(date) }
    static func date(_ millis: Int64) -> Date { EpochMilliseconds.date(millis) }

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try TallyAPI.encoder().encode(value), as: UTF8.self)
    }

    /// The same text, for the answers ``ResponseJSON`` writes.
    static func encode(_ value: some ResponseJSONWritable) -> String {
        ResponseJSON.text(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try TallyAPI.decoder().decode(T.self, from: Data(text.utf8))
    }

    static func hash(_ parts: String...) -> String {
        let digest = SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8))
        return digest.withUnsafeBytes { Hex.lowercase($0) }
    }

    /// A change of credits outside a purchase: a spend, an adjustment, a sign-up grant, a reservation.
    static func creditsEvent(user: String, currency: String, amount: Int64) -> TallyEventData {
        var data = TallyEventData(userID: user)
        data.currency = currency
        data.amount = amount
        return data
    }

}
