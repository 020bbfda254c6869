import ArgumentParser
import Crypto
import Foundation
import Logging
import TallyCore
import TallyServer
import TallyVerify
import X509

/// `tally serve`: the purchase server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Tally purchase server.",
        discussion: """
            With no flags: SQLite in ./tally.sqlite, the catalog Examples/tally.json, port 8080 on 127.0.0.1,
            trusting only Apple Root CA - G3, no /metrics (--metrics-address serves it on an address of its own). The secret key of admin calls comes from TALLY_SECRET_KEY or the
            catalog's secret_key. Behind a reverse proxy, name it with --trusted-proxy (or TALLY_TRUSTED_PROXIES,
            comma separated) so that rate limits and logs see each client's address (docs/rate-limits.md).
            SIGTERM finishes requests in flight, then stops.

            To ask Apple (POST /v1/me/purchases with a bare transaction_id), give the App Store Server API key:
            --apple-key (the .p8 file), --apple-key-id and --apple-issuer-id, or TALLY_APPLE_KEY_FILE,
            TALLY_APPLE_KEY_ID and TALLY_APPLE_ISSUER_ID. --apple-api-url (TALLY_APPLE_API_URL) points it at another
            server, such as `tally appstore serve`, instead of Apple's production and sandbox APIs.
            """)

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Option(help: "The port to listen on; 0 for any free port (the log says which).")
    var port: Int = 8080

    @Option(help: "The address to listen on (0.0.0.0 for every interface).")
    var host: String = "127.0.0.1"

    @Option(
        name: .customLong("metrics-address"),
        help: ArgumentHelp(
            "Serve Prometheus metrics at /metrics on this address of their own (127.0.0.1:9464); the public listener never serves them. "
                + "Off by default.",
            valueName: "HOST:PORT"))
    var metricsAddress: String?

    @Option(help: "An SQLite file path, or a postgres:// URL.")
    var database: String = "tally.sqlite"

    @Flag(help: "Development mode: also accept Sandbox data, and trust --trust-ca-dir's root and --xcode-certificate.")
    var dev = false

    @Option(
        name: .customLong("trust-ca-dir"),
        help: "With --dev: a simulated App Store's certificate folder whose root.cer (and receipt-root.cer, when there) to trust.")
    var trustCADir: String?

    @Option(
        name: .customLong("xcode-certificate"),
        help: ArgumentHelp(
            "With --dev: Xcode's StoreKit testing certificate (Editor > Save Public Certificate in Xcode), so that purchases "
                + "made in Xcode are accepted; nothing else signed by a lone certificate is.",
            valueName: "FILE"))
    var xcodeCertificate: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A reverse proxy's address or CIDR range (10.0.0.0/8, 2001:db8::/32); repeatable. Only requests from these "
                + "may name the client in X-Forwarded-For or Forwarded.",
            valueName: "CIDR"))
    var trustedProxy: [String] = []

    @Option(
        name: .customLong("response-signing-key"),
        help: "An intermediate key made by tally keys intermediate: answers to /v1/me… are signed when the app asks (or TALLY_RESPONSE_SIGNING_KEY).")
    var responseSigningKey: String?

    @Option(
        name: .customLong("webhook-retry-delays"),
        help: ArgumentHelp(
            "Seconds between webhook attempts after a failed one, comma separated (default the Standard Webhooks schedule: 5,300,1800,…,86400).",
            valueName: "SECONDS,…"))
    var webhookRetryDelays: String?

    @Option(name: .customLong("webhook-timeout"), help: "Seconds a webhook receiver has to answer.")
    var webhookTimeout: Double = 15

    @Option(name: .customLong("webhook-poll-interval"), help: "Seconds between looks for due webhooks when none were due.")
    var webhookPollInterval: Double = 1

    @Option(
        name: .customLong("webhook-claim-lease"),
        help: "Seconds a worker keeps the deliveries it claimed before another instance may take them (default: the timeout + 30).")
    var webhookClaimLease: Double?

    @Flag(name: .customLong("no-webhook-delivery"), help: "Run no webhook delivery worker in this instance (another one delivers).")
    var noWebhookDelivery = false

    @Option(name: .customLong("events-jsonl"), help: "Append every event to this JSON-lines file, one line each, in order.")
    var eventsJSONL: String?

    @OptionGroup var apple: AppleAPIOptions

    @Flag(
        name: .customLong("answer-consumption-requests"),
        help: "Answer Apple's consumption requests with what the ledger knows; only when the app's terms have the customer's consent.")
    var answerConsumptionRequests = false

    @Option(
        name: .customLong("refund-preference"),
        help: ArgumentHelp("With --answer-consumption-requests: grant, decline, none or undeclared (the default).", valueName: "PREFERENCE"))
    var refundPreference: String?

    @Option(
        name: .customLong("consumption-answer-interval"),
        help: ArgumentHelp("With --answer-consumption-requests: seconds between answering rounds (60).", valueName: "SECONDS"))
    var consumptionAnswerInterval: Int = 60

    @Option(
        name: .customLong("consumption-claim-lease"),
        help: ArgumentHelp(
            "With --answer-consumption-requests: seconds a claim on a request keeps other servers off it (300); longer than a send takes.",
            valueName: "SECONDS"))
    var consumptionClaimLease: Int = 300

    /// The roots of a simulated App Store's certificate folder: root.cer, and receipt-root.cer
    /// when it issues app receipts (StoreKit 1).
    /// - Throws: `ValidationError` naming what cannot be read.
    static func testRoots(_ folderPath: String) throws -> [Certificate] {
        let folder = URL(fileURLWithPath: folderPath)
        do {
            var roots = try CertificateLoading.certificates(contentsOf: folder.appendingPathComponent("root.cer"))
            let receiptRoot = folder.appendingPathComponent("receipt-root.cer")
            if FileManager.default.fileExists(atPath: receiptRoot.path) {
                roots += try CertificateLoading.certificates(contentsOf: receiptRoot)
            }
            return roots
        } catch {
            throw ValidationError("--trust-ca-dir: \(error.reason)")
        }
    }

    /// Xcode's StoreKit testing certificate, as a root: the verifiers take Xcode data only when
    /// its lone certificate is one of their roots.
    static func xcodeRoot(_ path: String) throws -> [Certificate] {
        let roots: [Certificate]
        do {
            roots = try CertificateLoading.certificates(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("--xcode-certificate \(path): \(error.reason)")
        }
        guard roots.count == 1 else { throw ValidationError("--xcode-certificate \(path): expected one certificate, found \(roots.count)") }
        return roots
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        _ = try metricsListenAddress()
        if trustCADir != nil, !dev { throw ValidationError("--trust-ca-dir needs --dev: test roots are trusted only in development") }
        if xcodeCertificate != nil, !dev {
            throw ValidationError("--xcode-certificate needs --dev: Xcode's certificate is made on a Mac, and trusted only in development")
        }
        _ = try trustedProxies()
        _ = try apple.configuration(bundleID: "validate", environments: [.production])
        _ = try consumptionAnswers()
        guard (1...3600).contains(consumptionAnswerInterval) else { throw ValidationError("--consumption-answer-interval must be 1 to 3600 seconds") }
        guard (5...3600).contains(consumptionClaimLease) else { throw ValidationError("--consumption-claim-lease must be 5 to 3600 seconds") }
    }

    /// `--metrics-address`, read; nil when absent.
    /// - Throws: `ValidationError` for anything but `host:port`.
    func metricsListenAddress() throws -> ListenAddress? {
        guard let metricsAddress else { return nil }
        guard let address = ListenAddress(metricsAddress) else {
            throw ValidationError("--metrics-address must be host:port, such as 127.0.0.1:9464 or [::1]:9464")
        }
        return address
    }

    /// The consumption answer policy from the flags; `nil` when answers are off.
    /// - Throws: `ValidationError` for a preference that is not one of the four.
    func consumptionAnswers() throws -> ConsumptionAnswerPolicy? {
        let preferences: [String: ConsumptionRequest.RefundPreference] = [
            "grant": .preferGrant, "decline": .preferDecline, "none": .noPreference, "undeclared": .undeclared,
        ]
        let preference = try refundPreference.map { name in
            guard let value = preferences[name] else { throw ValidationError("--refund-preference must be grant, decline, none or undeclared") }
            return value
        }
        if preference != nil, !answerConsumptionRequests { throw ValidationError("--refund-preference needs --answer-consumption-requests") }
        guard answerConsumptionRequests else { return nil }
        guard apple.appleKey != nil || ProcessInfo.processInfo.environment["TALLY_APPLE_KEY_FILE"] != nil else {
            throw ValidationError("--answer-consumption-requests needs the App Store Server API key (--apple-key)")
        }
        return ConsumptionAnswerPolicy(refundPreference: preference ?? .undeclared)
    }

    /// `--trusted-proxy` ranges, then those of `TALLY_TRUSTED_PROXIES`.
    /// - Throws: `ValidationError` naming the range that cannot be read.
    func trustedProxies() throws -> TrustedProxies {
        let options: TrustedProxies
        do {
            options = try TrustedProxies(trustedProxy)
        } catch {
            throw ValidationError("--trusted-proxy \(error)")
        }
        guard let list = ProcessInfo.processInfo.environment["TALLY_TRUSTED_PROXIES"] else { return options }
        do {
            return options.adding(try TrustedProxies(list: list))
        } catch {
            throw ValidationError("TALLY_TRUSTED_PROXIES: \(error)")
        }
    }

    func run() async throws {
        var logger = Logger(label: "tally")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let catalog: TallyCatalog
        do {
            catalog = try TallyCatalog.load(contentsOf: URL(fileURLWithPath: config))
        } catch {
            throw ValidationError("--config \(config): \(error)")
        }

        var roots: [Certificate] = []
        if dev {
            if let trustCADir { roots = try Self.testRoots(trustCADir) }
            if let xcodeCertificate { roots += try Self.xcodeRoot(xcodeCertificate) }
            logger.warning(
                "DEVELOPMENT MODE: Sandbox data is accepted\(trustCADir.map { ", the test root in \($0) is trusted" } ?? "")\(xcodeCertificate.map { ", Xcode's StoreKit testing certificate \($0) is trusted" } ?? ""). Never use --dev in production."
            )
        }
        var configuration = ServerConfiguration(database: .init(database), catalog: catalog)
        configuration.host = host
        configuration.port = port
        configuration.metricsAddress = try metricsListenAddress()
        configuration.development = dev
        configuration.testRoots = roots
        configuration.secretKey = ProcessInfo.processInfo.environment["TALLY_SECRET_KEY"] ?? catalog.secretKey
        configuration.trustedProxies = try trustedProxies()
        if let path = responseSigningKey ?? ProcessInfo.processInfo.environment["TALLY_RESPONSE_SIGNING_KEY"] {
            do {
                configuration.responseSigningKey = try ResponseSigningKey(fileData: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ValidationError("--response-signing-key \(path): \(error)")
            }
            if let key = configuration.responseSigningKey, key.expiresAt <= Date() {
                throw ValidationError(
                    "--response-signing-key \(path) expired at \(key.expiresAt.formatted(.iso8601)); make a new one with tally keys intermediate")
            }
        }
        // The sandbox too whenever the server takes Sandbox data (TestFlight and App Review buy there).
        let environments: [AppStoreEnvironment] =
            dev ? [.production, .sandbox] : [.production] + (catalog.app.environments.contains("Sandbox") ? [.sandbox] : [])
        configuration.appStoreServerAPI = try apple.configuration(bundleID: catalog.app.bundleID, environments: environments)
        configuration.consumptionAnswers = try consumptionAnswers()
        configuration.consumptionAnswerInterval = .seconds(consumptionAnswerInterval)
        configuration.consumptionClaimLease = TimeInterval(consumptionClaimLease)
        if let api = configuration.appStoreServerAPI {
            logger.info(
                "App Store Server API",
                metadata: ["key_id": "\(api.keyID)", "environments": "\(api.environments.map { "\($0.environment.rawValue)@\($0.baseURL)" })"])
        }
        configuration.webhookDelivery = noWebhookDelivery ? nil : try webhookDelivery()
        configuration.eventLogPath = eventsJSONL
        configuration.logger = logger
        if configuration.secretKey == nil { logger.notice("no secret key (TALLY_SECRET_KEY): admin and server-to-server calls are refused") }
        logger.info("tally serve", metadata: ["database": "\(configuration.database)"])
        let app = try await buildApplication(configuration: configuration)
        try await app.runService()
    }

    /// The delivery worker's settings from the options.
    func webhookDelivery() throws -> WebhookDeliveryConfiguration {
        var delivery = WebhookDeliveryConfiguration()
        guard webhookTimeout > 0, webhookTimeout <= 300 else { throw ValidationError("--webhook-timeout must be above 0 and at most 300 seconds") }
        guard webhookPollInterval >= 0.01, webhookPollInterval <= 3600 else {
            throw ValidationError("--webhook-poll-interval must be 0.01 to 3600 seconds")
        }
        delivery.timeout = webhookTimeout
        if let webhookClaimLease {
            // The lease covers the claim, the slowest request and the record that follows it.
            guard webhookClaimLease >= webhookTimeout + 1, webhookClaimLease <= 3600 else {
                throw ValidationError("--webhook-claim-lease must be at least --webhook-timeout + 1 and at most 3600 seconds")
            }
            delivery.lease = webhookClaimLease
        }
        delivery.pollInterval = .milliseconds(Int64(webhookPollInterval * 1000))
        if let webhookRetryDelays {
            let delays = webhookRetryDelays.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !delays.isEmpty, delays.count <= 20, delays.allSatisfy({ $0 != nil && $0! >= 0 && $0! <= 604_800 }) else {
                throw ValidationError("--webhook-retry-delays must be 1 to 20 numbers of seconds from 0 to 604800, comma separated")
            }
            delivery.retry = WebhookRetryPolicy(delays: delays.compactMap { $0 })
        }
        return delivery
    }
}
