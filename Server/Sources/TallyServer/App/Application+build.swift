public import Hummingbird
import Logging
public import NIOCore
import ServiceLifecycle
import TallyCore
import TallySQL

/// Builds the Tally server from its configuration: opens and migrates the database, builds
/// storage, the verifier and the routes, and adds the background services. `tally serve`, the
/// benchmarks and the tests all build the server with it.
///
/// ```swift
/// let catalog = try TallyCatalog.load(contentsOf: URL(fileURLWithPath: "tally.json"))
/// let app = try await buildApplication(configuration: ServerConfiguration(database: .sqlite(path: "tally.sqlite"), catalog: catalog))
/// try await app.runService()  // until SIGTERM; requests in flight finish, then the database closes
/// ```
///
/// - Parameters:
///   - configuration: how the server runs.
///   - onServerRunning: called once the server listens, with its channel (whose local
///     address names the port when ``ServerConfiguration/port`` is 0).
/// - Returns: the application; run it with `runService()`, or inside a service group.
/// - Throws: ``SQLDatabaseError`` when the database cannot be opened or migrated.
public func buildApplication(
    configuration: ServerConfiguration,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let logger = configuration.logger
    var services: [any Service] = []
    let database: any SQLDatabase
    switch configuration.database {
    case .sqlite(let path):
        database = try SQLiteDatabase(path: path)
        services.append(DatabaseService(database: database))
    case .postgres(let url):
        database = try await PostgresDatabase.connect(url: url, logger: logger)
        services.append(DatabaseService(database: database))
    case .opened(let opened):
        database = opened
    }
    do {
        try await database.migrate(Migrations.all)
        try await MetricsRollup.ensureBuilt(database)
    } catch {
        if !services.isEmpty { await database.close() }
        throw error
    }
    let dependencies = ServerDependencies(configuration, database: database)
    if let interval = configuration.reservationSweepInterval {
        services.append(ReservationSweeper(spending: dependencies.storage.spending, clock: ContinuousClock(), interval: interval, logger: logger))
    }
    if let apple = dependencies.apple, let api = configuration.appStoreServerAPI, let interval = configuration.notificationCatchUpInterval {
        let catchUp = NotificationCatchUp(
            apple: apple, notifications: dependencies.storage.notifications, environments: api.environments.map(\.environment), now: configuration.now)
        services.append(
            PeriodicService("notification catch-up", clock: ContinuousClock(), interval: interval, logger: logger) {
                let report = try await catchUp.run()
                if report.applied > 0 {
                    logger.notice("missed App Store notifications applied", metadata: ["applied": "\(report.applied)", "pages": "\(report.pages)"])
                }
            })
    }
    if let apple = dependencies.apple, let interval = configuration.subscriptionSyncInterval {
        let sync = SubscriptionSync(apple: apple, notifications: dependencies.storage.notifications, now: configuration.now)
        services.append(
            PeriodicService("subscription sync", clock: ContinuousClock(), interval: interval, logger: logger) {
                let asked = try await sync.run()
                if asked > 0 { logger.debug("subscriptions near renewal asked of Apple", metadata: ["count": "\(asked)"]) }
            })
    }
    if let apple = dependencies.apple, let policy = configuration.consumptionAnswers {
        let answerer = ConsumptionAnswerer(
            apple: apple, notifications: dependencies.storage.notifications, policy: policy, now: configuration.now, lease: configuration.consumptionClaimLease)
        services.append(
            PeriodicService("consumption answers", clock: ContinuousClock(), interval: configuration.consumptionAnswerInterval, logger: logger) {
                let report = try await answerer.run()
                if report != ConsumptionAnswerer.Report() {
                    logger.info(
                        "consumption requests answered",
                        metadata: [
                            "sent": "\(report.sent)", "refused": "\(report.refused)", "deferred": "\(report.deferred)", "expired": "\(report.expired)",
                        ])
                }
            })
    }
    if let delivery = configuration.webhookDelivery {
        services.append(
            WebhookService(storage: dependencies.webhooks, configuration: delivery, metrics: dependencies.metrics, now: configuration.now, logger: logger))
    }
    if let path = configuration.eventLogPath {
        let log = try EventLog(path: path, storage: dependencies.webhooks, gapWait: database.dialect == .postgres ? 60 : 0, now: configuration.now)
        // From the start: events are written only while something reads them.
        do {
            try await dependencies.webhooks.keepEvents(for: .eventLog)
        } catch {
            if !services.isEmpty { await database.close() }
            throw error
        }
        services.append(
            PeriodicService("event log", clock: ContinuousClock(), interval: .seconds(1), logger: logger) {
                _ = try await log.catchUp()
            })
    }
    if let address = configuration.metricsAddress {
        // Quieter than the server's own log: its "listening on" line is the public listener's.
        var metricsLogger = logger
        metricsLogger.logLevel = max(logger.logLevel, .warning)
        services.append(
            Application(
                router: buildMetricsRouter(dependencies.metrics),
                configuration: .init(address: .hostname(address.host, port: address.port), serverName: "tally"),
                onServerRunning: { channel in
                    let bound = ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
                    logger.notice("metrics served at http://\(bound)/metrics")
                },
                logger: metricsLogger))
    }
    let proxies = configuration.trustedProxies
    logger.info(
        "tally server",
        metadata: [
            "address": "\(configuration.host):\(configuration.port)", "bundle_id": "\(configuration.catalog.app.bundleID)",
            "environments": "\(dependencies.verifier.configuration.environments.map(\.rawValue).sorted())",
            "trusted_proxies": "\(proxies.isEmpty ? "none" : proxies.ranges.map(\.description).joined(separator: ","))",
            "secret_key": "\(dependencies.secretKey.map { $0.isEmpty ? "none" : "set" } ?? "none")",
            "metrics": "\(configuration.metricsAddress.map(\.description) ?? "off")",
        ])
    return Application(
        router: buildRouter(dependencies),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "tally"),
        services: services,
        onServerRunning: onServerRunning,
        logger: logger)
}
