import Crypto
public import Foundation
public import Hummingbird
public import Logging
public import TallyCore
public import TallyVerify

/// Everything the server's routes need, built once at start.
public struct ServerDependencies: Sendable {
    /// Where the data lives.
    public var storage: any TallyStorage
    /// What decides whether signed data is genuine.
    public var verifier: SignedDataVerifier
    /// What the server sells.
    public var catalog: TallyCatalog
    /// The secret key of server-to-server and admin calls; nil disables them.
    public var secretKey: String?
    /// Counters and histograms for `/metrics`.
    public var metrics: Metrics
    /// The clock.
    public var now: @Sendable () -> Date
    /// Health of the database, for `/healthz`.
    public var healthCheck: @Sendable () async -> Bool
    /// The reverse proxies whose `X-Forwarded-For` and `Forwarded` name the client; none by default.
    public var trustedProxies: TrustedProxies

    /// Creates the dependencies.
    public init(storage: any TallyStorage, verifier: SignedDataVerifier, catalog: TallyCatalog, secretKey: String?,
                metrics: Metrics = Metrics(), trustedProxies: TrustedProxies = .none,
                now: @escaping @Sendable () -> Date, healthCheck: @escaping @Sendable () async -> Bool) {
        self.storage = storage
        self.verifier = verifier
        self.catalog = catalog
        self.secretKey = secretKey
        self.metrics = metrics
        self.trustedProxies = trustedProxies
        self.now = now
        self.healthCheck = healthCheck
    }
}

/// Builds the Tally server: `buildRouter` for tests that run the routes in memory,
/// `buildApplication` for `tally serve`.
public enum TallyServerApp {
    /// The routes and middleware. Every GET route also answers HEAD.
    public static func buildRouter(_ dependencies: ServerDependencies) -> Router<TallyRequestContext> {
        let router = Router(context: TallyRequestContext.self, options: .autoGenerateHeadEndpoints)
        let allowedMethods = AllowedMethods()
        router.addMiddleware {
            ServerMiddleware(
                metrics: dependencies.metrics, addresses: ClientAddressResolver(trustedProxies: dependencies.trustedProxies),
                allowedMethods: allowedMethods)
        }
        let handlers = Handlers(dependencies: dependencies)
        handlers.register(on: router)
        allowedMethods.load(router.routes.map { ($0.path.description, $0.method) })
        return router
    }

    /// The application: HTTP server, the reservation sweeper, graceful shutdown on SIGTERM.
    public static func buildApplication(
        _ dependencies: ServerDependencies, host: String, port: Int, logger: Logger
    ) -> some ApplicationProtocol {
        Application(
            router: buildRouter(dependencies),
            configuration: .init(address: .hostname(host, port: port), serverName: "tally"),
            services: [ReservationSweeper(storage: dependencies.storage, clock: ContinuousClock(), logger: logger)],
            logger: logger)
    }
}
