import Foundation
import TallyCore
import TallySQL
import TallyVerify

/// What the server's routes run on, built from a ``ServerConfiguration`` and its opened,
/// migrated database: storage, the verifier, the catalog, the secret key, metrics, the clock
/// and the health check.
struct ServerDependencies: Sendable {
    /// Where the data lives.
    let storage: SQLStorage
    /// What the web console reads and writes beyond it (the same database).
    let console: ConsoleStore
    /// What decides whether signed data is genuine.
    let verifier: SignedDataVerifier
    /// What decides whether an app receipt is genuine.
    let receiptVerifier: ReceiptVerifier
    /// What the server sells.
    let catalog: TallyCatalog
    /// The secret key of server-to-server and admin calls; nil disables them.
    let secretKey: String?
    /// Counters and histograms for `/metrics`.
    let metrics: Metrics
    /// The clock.
    let now: @Sendable () -> Date
    /// Health of the database, for `/healthz`: whether it answers a query.
    let healthCheck: @Sendable () async -> Bool
    /// The reverse proxies whose `X-Forwarded-For` and `Forwarded` name the client.
    let trustedProxies: TrustedProxies
    /// The App Store Server API client, when one is configured.
    let apple: AppStoreServerClient?
    /// The key that signs answers to `/v1/me…`, when one is configured.
    let responseSigningKey: ResponseSigningKey?
    /// Webhook endpoints, deliveries and the events (the same database).
    let webhooks: WebhookStore

    /// Builds the dependencies over `database`.
    /// - Parameters:
    ///   - configuration: the server's configuration; its `database` is not opened again.
    ///   - database: the opened, migrated database.
    init(_ configuration: ServerConfiguration, database: any SQLDatabase) {
        var sql = SQLStorage(database: database, catalog: configuration.catalog, now: configuration.now)
        let counters = configuration.metrics
        sql.eventsCommitted = { types in
            for type in types { counters.increment("tally_events_total", ["type": type.rawValue]) }
        }
        storage = sql
        webhooks = sql.webhooks
        console = sql.console
        verifier =
            configuration.verifier
            ?? configuration.catalog.verifier(
                development: configuration.development, testRoots: configuration.testRoots, now: configuration.now)
        receiptVerifier =
            configuration.receiptVerifier
            ?? configuration.catalog.receiptVerifier(
                development: configuration.development, testRoots: configuration.testRoots, now: configuration.now)
        catalog = configuration.catalog
        secretKey = configuration.secretKey
        metrics = configuration.metrics
        now = configuration.now
        // One statement without a transaction: one round trip on PostgreSQL, not three.
        healthCheck = { (try? await database.readStatement("SELECT 1 AS ok").count) == 1 }
        trustedProxies = configuration.trustedProxies
        responseSigningKey = configuration.responseSigningKey
        let verifier = verifier
        apple = configuration.appStoreServerAPI.map { AppStoreServerClient(configuration: $0, verifier: verifier) }
    }
}
