public import Foundation
public import Logging
public import TallyCore
public import TallySQL
public import TallyVerify
public import X509

/// How a Tally server runs: where it listens, where its data lives, what it sells, whom it
/// trusts and who may administer it. ``buildApplication(configuration:onServerRunning:)``
/// builds everything else from it.
///
/// ```swift
/// var configuration = ServerConfiguration(database: .sqlite(path: "tally.sqlite"), catalog: catalog)
/// configuration.secretKey = ProcessInfo.processInfo.environment["TALLY_SECRET_KEY"]
/// let app = try await buildApplication(configuration: configuration)
/// try await app.runService()
/// ```
public struct ServerConfiguration: Sendable {
    /// Where the data lives.
    public enum Database: Sendable {
        /// An SQLite file, created when missing; the application closes it when it stops.
        case sqlite(path: String)
        /// A PostgreSQL server (`postgres://user:password@host:port/database?sslmode=…`); the
        /// application closes its connections when it stops.
        case postgres(url: String)
        /// A database the caller opened and closes (tests, benchmarks); it is migrated all the same.
        case opened(any SQLDatabase)

        /// What `tally serve --database` names: a `postgres://` or `postgresql://` URL, or an SQLite path.
        public init(_ text: String) {
            self = text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") ? .postgres(url: text) : .sqlite(path: text)
        }
    }

    /// The address to listen on; `0.0.0.0` for every interface.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 for any free one (the log and `onServerRunning` say which).
    public var port = 8080
    /// Where the data lives.
    public var database: Database
    /// What the server sells, its currencies and its limits.
    public var catalog: TallyCatalog
    /// Development mode: also accept Sandbox and Xcode data (`tally serve --dev`).
    public var development = false
    /// Roots trusted beside Apple's, such as a simulated App Store's JWS root and receipt
    /// root; only ever given explicitly, in development. Both verifiers get the whole list:
    /// a root of one kind never completes a chain of the other.
    public var testRoots: [Certificate] = []
    /// The verifier of signed data, when the caller builds its own (tests pinning the
    /// verification time); nil builds the catalog's from ``development``, ``testRoots`` and
    /// ``now`` (see `TallyCatalog.verifier(development:testRoots:now:)`).
    public var verifier: SignedDataVerifier?
    /// The verifier of app receipts, when the caller builds its own; nil builds the catalog's
    /// from ``development``, ``testRoots`` and ``now`` (see
    /// `TallyCatalog.receiptVerifier(development:testRoots:now:)`).
    public var receiptVerifier: ReceiptVerifier?
    /// The App Store Server API, when the server may ask Apple: `POST /v1/me/purchases` then
    /// takes a bare `transaction_id`. `nil` by default: the server only listens.
    public var appStoreServerAPI: AppStoreServerAPIConfiguration?
    /// The intermediate key that signs answers to `/v1/me…` when the app asks (`X-Tally-Nonce`);
    /// nil answers unsigned. See `ResponseSignature`.
    public var responseSigningKey: ResponseSigningKey?
    /// With the App Store Server API: how often the server catches up with the notifications it
    /// missed (at start, then every interval); `nil` never.
    public var notificationCatchUpInterval: Duration? = .seconds(600)
    /// With the App Store Server API: how the server answers Apple's consumption requests; `nil`
    /// (the default) does not answer them. Set it only when the app's terms have the customer's
    /// consent to share consumption data.
    public var consumptionAnswers: ConsumptionAnswerPolicy?
    /// With the App Store Server API: how often the subscriptions renewing now or just lapsed are
    /// asked of Apple; `nil` never.
    public var subscriptionSyncInterval: Duration? = .seconds(300)
    /// How often the consumption requests due are answered.
    public var consumptionAnswerInterval: Duration = .seconds(60)
    /// How long a server's claim on a consumption request keeps other servers off it: longer than
    /// a send with its retries takes; a claim of a server that died lapses after it.
    public var consumptionClaimLease: TimeInterval = 300
    /// The secret key of server-to-server and admin calls; nil (or empty) refuses them all.
    public var secretKey: String?
    /// The reverse proxies whose `X-Forwarded-For` and `Forwarded` name the client; none by default.
    public var trustedProxies = TrustedProxies.none
    /// How often expired reservations are released; nil runs no sweeper (expired ones are
    /// still refused when used, and released by their user's next spend or reservation of
    /// that currency).
    public var reservationSweepInterval: Duration? = .seconds(1)
    /// Counters and histograms for `/metrics`.
    public var metrics = Metrics()
    /// Where `/metrics` is served, on a listener of its own that serves nothing else; nil (the
    /// default) serves it nowhere. The public listener never serves it: it counts the
    /// business's totals (grants and spends by currency, notifications by type).
    public var metricsAddress: ListenAddress?
    /// How events reach webhook endpoints; nil runs no delivery worker in this instance
    /// (another instance delivers).
    public var webhookDelivery: WebhookDeliveryConfiguration? = WebhookDeliveryConfiguration()
    /// A JSON-lines file that every event is appended to, one line each, in sequence order.
    public var eventLogPath: String?
    /// The current time, for storage, limits and online verification.
    public var now: @Sendable () -> Date = { Date() }
    /// Where the server logs.
    public var logger = Logger(label: "tally")

    /// A configuration with the defaults of `tally serve`: 127.0.0.1:8080, Apple's root only,
    /// no secret key, no trusted proxy.
    /// - Parameters:
    ///   - database: where the data lives.
    ///   - catalog: what the server sells.
    public init(database: Database, catalog: TallyCatalog) {
        self.database = database
        self.catalog = catalog
    }
}

extension ServerConfiguration.Database: CustomStringConvertible {
    /// The database for logs and reports, without a password: `SQLite tally.sqlite`,
    /// `PostgreSQL postgres://tally@db:5432/tally`.
    public var description: String {
        switch self {
        case .sqlite(let path): "SQLite \(path)"
        case .postgres(let url): "PostgreSQL \((try? PostgresDatabase.Configuration(url: url))?.redactedURL ?? "postgres://…")"
        case .opened(let database): "\(database.dialect == .sqlite ? "SQLite" : "PostgreSQL"), opened by the caller"
        }
    }
}

/// An address to listen on: a host (a name, an IPv4 address, or an IPv6 address) and a port.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host to bind; `0.0.0.0` for every IPv4 interface.
    public var host: String
    /// The port; 0 for any free one.
    public var port: Int

    /// - Parameters:
    ///   - host: the host to bind.
    ///   - port: the port, 0 to 65535.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port` (`127.0.0.1:9464`, `[::1]:9464`); nil for anything else.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !host.contains(where: { $0 == "[" || $0 == "]" || $0 == "/" || $0.isWhitespace }) else { return nil }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with an IPv6 address in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// How the delivery worker sends webhooks.
public struct WebhookDeliveryConfiguration: Sendable {
    /// When to try again after a failed attempt.
    public var retry = WebhookRetryPolicy.standard
    /// How long a receiver has to answer.
    public var timeout: TimeInterval = 15
    /// The pause between polls of the outbox when nothing was due.
    public var pollInterval: Duration = .seconds(1)
    /// Requests in flight at once, over all endpoints: as one ends, the next due delivery takes its place.
    public var concurrency = 64
    /// Requests in flight at once to one endpoint, so that a slow one leaves the other slots to the rest.
    public var perEndpoint = 32
    /// How long a claimed delivery stays with its worker; a worker that dies leaves its claims
    /// to others after this. Longer than `timeout`, else a slow answer would be sent twice.
    public var lease: TimeInterval?

    /// The lease in force: as set, else the timeout plus 30 seconds.
    var claimLease: TimeInterval { lease ?? timeout + 30 }

    /// The specification's schedule, a 15 s timeout, a poll every second.
    public init() {}
}
