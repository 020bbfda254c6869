public import Foundation
import Logging
import NIOConcurrencyHelpers
import TallyCore
import TallyKit
import TallyKitTesting
public import TallyServer
import TallyTesting
import TallyVerify

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Measures TallyKit on the device: how long after the store hands over a signed transaction
/// its credit can be used, one purchase after another, as a customer buys.
///
/// Each purchase goes through `PurchaseManager.purchase(_:)` with the simulated store (a real
/// ES256-signed transaction from `SimulatedAppStore`), and is delivered either on the device
/// (``Mode/onDevice``: `OnDeviceLedger`, verified on the device, in a SQLite file) or by a
/// Tally server running in this process on loopback (``Mode/server``: `ServerDelivery` over
/// `URLSession`). The measured window opens at the manager's `.paid` checkpoint, right after
/// the store returned the transaction, and closes when the purchase call has returned
/// `.purchased` for that transaction and `account()` (the call an app's UI makes) shows the
/// new balance. Everything in between is the real pipeline: journal, verification, delivery,
/// journal again, finish, account cache.
///
/// Baselines measured in the same rounds: one durable 4 KB write (`write` + `fsync`) in the
/// device's folder, since the pipeline is a handful of durable commits; and, against the
/// server, one `GET /healthz` round trip through the device's own HTTP transport.
public enum ClientBenchmark: Sendable {
    /// Where the credit is delivered.
    public enum Mode: String, CaseIterable, Sendable, Codable {
        /// `OnDeviceLedger` in the device's SQLite database (an app without a backend).
        case onDevice = "on-device"
        /// `ServerDelivery` to a Tally server on loopback.
        case server
    }

    /// How to run.
    public struct Options: Sendable {
        /// The modes, in order.
        public var modes: [Mode]
        /// Measured purchases per mode.
        public var purchases: Int
        /// Purchases per mode before measuring.
        public var warmUp: Int
        /// Rounds per mode: each measures its baselines, then its share of the purchases.
        public var rounds: Int
        /// Durable writes (and `/healthz` calls) measured per round as baselines.
        public var baselineSamples: Int
        /// The Tally catalog (`Examples/tally.json`): what the products grant, the app's bundle id.
        public var catalogURL: URL
        /// The Xcode StoreKit configuration the simulated store sells (`Examples/Tally.storekit`).
        public var storeCatalogURL: URL
        /// The product bought on the device.
        public var onDeviceProduct: String
        /// The product bought against the server.
        public var serverProduct: String
        /// The server's database; nil for a new SQLite file in ``folder``.
        public var serverDatabase: ServerConfiguration.Database?
        /// Where the device's files (and the server's SQLite file) go; a new temporary folder, deleted afterwards, when nil.
        public var folder: URL?

        /// The defaults of `tally bench client`.
        public init(
            catalogURL: URL, storeCatalogURL: URL, modes: [Mode] = Mode.allCases, purchases: Int = 1_000, warmUp: Int = 20,
            rounds: Int = 5, baselineSamples: Int = 40, onDeviceProduct: String = "com.tally.zorya.report.career",
            serverProduct: String = "com.tally.photo.credits.10", serverDatabase: ServerConfiguration.Database? = nil, folder: URL? = nil
        ) {
            self.modes = modes
            self.purchases = purchases
            self.warmUp = warmUp
            self.rounds = rounds
            self.baselineSamples = baselineSamples
            self.catalogURL = catalogURL
            self.storeCatalogURL = storeCatalogURL
            self.onDeviceProduct = onDeviceProduct
            self.serverProduct = serverProduct
            self.serverDatabase = serverDatabase
            self.folder = folder
        }
    }

    /// Latency percentiles, in milliseconds.
    public struct Latency: Sendable, Codable {
        public var samples: Int
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double
        public var maxMilliseconds: Double
        public var meanMilliseconds: Double

        init(_ nanoseconds: [UInt64]) {
            let sorted = nanoseconds.sorted()
            samples = sorted.count
            p50Milliseconds = ServerBenchmark.percentile(sorted, 0.50)
            p99Milliseconds = ServerBenchmark.percentile(sorted, 0.99)
            maxMilliseconds = Double(sorted.last ?? 0) / 1e6
            meanMilliseconds = sorted.isEmpty ? 0 : Double(sorted.reduce(0, +)) / Double(sorted.count) / 1e6
        }
    }

    /// One mode's figures.
    public struct ModeResult: Sendable, Codable {
        /// `on-device` or `server`.
        public var mode: String
        /// The product bought, and the currency and amount one purchase grants.
        public var product: String
        public var currency: String
        public var grantPerPurchase: Int64
        /// Purchases measured, and bought before measuring.
        public var purchases: Int
        public var warmUp: Int
        public var rounds: Int
        /// The server's database and its durability settings as read back from it (server mode).
        public var server: String?
        /// The headline: from the `.paid` checkpoint to the credit shown by `account()`.
        public var paidToUsable: Latency
        /// From the `.paid` checkpoint to `purchase` returning `.purchased`.
        public var paidToReturned: Latency
        /// The whole `purchase` call, for context: it also prepares the purchase (an order on
        /// the server), journals the intent and waits for the store to sign.
        public var purchaseCall: Latency
        /// Baseline: one 4 KB `write` + `fsync` in the device's folder.
        public var durableWrite: Latency
        /// Baseline: `GET /healthz` through the device's HTTP transport (server mode).
        public var healthRoundTrip: Latency?
        /// Median over rounds of the round's paid → usable p50 ÷ its durable write p50.
        public var usableP50ToDurableWriteP50: Double
        /// Median over rounds of the round's paid → usable p50 ÷ its `/healthz` p50 (server mode).
        public var usableP50ToHealthP50: Double?
        /// The window stage by stage, between consecutive checkpoints.
        public var stages: [Stage]
        /// Each round's paid → usable p50 and p99, in milliseconds.
        public var roundP50Milliseconds: [Double]
        public var roundP99Milliseconds: [Double]
        /// The balance a fresh fetch shows at the end, and what it should be.
        public var finalBalance: Int64
        public var expectedBalance: Int64
    }

    /// What a run measured.
    public struct Result: Sendable, Codable {
        public var modes: [ModeResult]
        /// The goal for paid → usable p99, and the limit an app without a backend asks for, in milliseconds.
        public var targetP99Milliseconds: Double
        public var seedLimitMilliseconds: Double
        /// The device database's settings (those `LocalDatabase` opens with).
        public var deviceDatabase: String
    }

    /// A benchmark that could not produce honest figures.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs the modes one after the other.
    /// - Parameters:
    ///   - options: what to run.
    ///   - progress: receives a line at each step.
    /// - Throws: ``Failure`` when a purchase does not end credited: a figure for a failure is no figure.
    public static func run(_ options: Options, progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        let serverCatalog = InProcessServer.benchmarkCatalog(try TallyCatalog.load(contentsOf: options.catalogURL))
        let onDeviceCatalog = try OnDeviceCatalog.load(contentsOf: options.catalogURL)
        let storeCatalog = try StoreKitConfiguration.load(contentsOf: options.storeCatalogURL)
        let folder = options.folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("tally-bench-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if options.folder == nil { try? FileManager.default.removeItem(at: folder) } }

        // A fresh test chain for the run, trusted explicitly by the device's and the server's verifiers.
        let authority = try TestCertificateAuthority(profile: .init(issuedAt: Date()))
        let context = Context(
            options: options, serverCatalog: serverCatalog, onDeviceCatalog: onDeviceCatalog, storeCatalog: storeCatalog,
            authority: authority, folder: folder, progress: progress)

        var results: [ModeResult] = []
        for mode in options.modes {
            switch mode {
            case .onDevice: results.append(try await onDevice(context))
            case .server: results.append(try await server(context))
            }
        }
        return Result(
            modes: results, targetP99Milliseconds: 50, seedLimitMilliseconds: 1_000,
            deviceDatabase: "journal_mode=wal synchronous=FULL")
    }

    struct Context: Sendable {
        var options: Options
        var serverCatalog: TallyCatalog
        var onDeviceCatalog: OnDeviceCatalog
        var storeCatalog: StoreKitConfiguration
        var authority: TestCertificateAuthority
        var folder: URL
        var progress: @Sendable (String) -> Void

        /// A new App Store for one device, signing with the run's authority at the real time.
        func appStore() throws -> SimulatedAppStore {
            let configuration = SimulatedAppStore.Configuration(
                catalog: storeCatalog, bundleID: serverCatalog.app.bundleID, appAppleID: serverCatalog.app.appAppleID)
            return try SimulatedAppStore(configuration: configuration, authority: authority, time: .system(now: { Date() }))
        }

        /// What one unit of `product` grants, from the catalog.
        func grant(_ product: String) throws -> Amount {
            guard let grant = onDeviceCatalog.product(product)?.grants.first else {
                throw Failure(description: "\(product) is not a consumable that grants a currency in \(options.catalogURL.path)")
            }
            return grant
        }
    }

    // MARK: - Modes

    static func onDevice(_ context: Context) async throws -> ModeResult {
        let product = context.options.onDeviceProduct
        let grant = try context.grant(product)
        let deviceFolder = context.folder.appendingPathComponent("on-device")
        try FileManager.default.createDirectory(at: deviceFolder, withIntermediateDirectories: true)
        let database = try await LocalDatabase(path: deviceFolder.appendingPathComponent("device.sqlite").path)
        // The device trusts the run's test root explicitly, as only tests and benchmarks may.
        let verifier = SignedDataVerifier(
            .init(
                bundleID: .equals(context.serverCatalog.app.bundleID),
                appAppleID: context.serverCatalog.app.appAppleID.map { .equals($0) } ?? .any,
                environments: [.sandbox], rootCertificates: [context.authority.root]),
            now: { Date() })
        // The simulated store speaks StoreKit 2 only, so no app receipt needs verifying.
        let ledger = try await OnDeviceLedger(
            database: database, catalog: context.onDeviceCatalog, verifier: verifier, storeKit1: false, now: { Date() })
        context.progress("on-device: OnDeviceLedger in \(deviceFolder.path)")
        return try await measure(
            .onDevice, context: context, product: product, grant: grant, delivery: ledger, database: database, scope: "device",
            deviceFolder: deviceFolder, server: nil, health: nil)
    }

    static func server(_ context: Context) async throws -> ModeResult {
        let product = context.options.serverProduct
        let grant = try context.grant(product)
        guard context.serverCatalog.product(product) != nil else {
            throw Failure(description: "the server's catalog has no \(product)")
        }
        var logger = Logger(label: "tally.bench.client")
        logger.logLevel = .warning
        let target = context.options.serverDatabase ?? .sqlite(path: context.folder.appendingPathComponent("server.sqlite").path)
        let (database, durability) = try await InProcessServer.open(target, logger: logger)
        let serverDescription = "\(target), \(durability)"
        context.progress("server: \(serverDescription)")
        let outcome: Swift.Result<ModeResult, any Error>
        do {
            outcome = .success(
                try await InProcessServer.run(
                    database: database, catalog: context.serverCatalog, trusting: context.authority, logger: logger
                ) { port in
                    let baseURL = URL(string: "http://\(InProcessServer.host):\(port)")!
                    // One transport for the device's calls and the /healthz baseline: the same connections.
                    let transport = URLSessionTransport()
                    let credentials = try await ServerDelivery.register(baseURL: baseURL, transport: transport)
                    let delivery = ServerDelivery(baseURL: baseURL, credentials: credentials, transport: transport)
                    let deviceFolder = context.folder.appendingPathComponent("server-device")
                    try FileManager.default.createDirectory(at: deviceFolder, withIntermediateDirectories: true)
                    let local = try await LocalDatabase(path: deviceFolder.appendingPathComponent("device.sqlite").path)
                    var health = URLRequest(url: baseURL.appendingPathComponent("healthz"))
                    health.httpMethod = "GET"
                    let request = health
                    return try await measure(
                        .server, context: context, product: product, grant: grant, delivery: delivery, database: local,
                        scope: credentials.userID, deviceFolder: deviceFolder, server: serverDescription,
                        health: {
                            let answer = try await transport.send(request)
                            guard answer.status == 200 else { throw Failure(description: "GET /healthz answered \(answer.status)") }
                        })
                })
        } catch {
            outcome = .failure(error)
        }
        await database.close()
        return try outcome.get()
    }

    // MARK: - Measuring

    /// The moments of each purchase's checkpoints, by transaction id.
    final class StepMoments: Sendable {
        private let moments = NIOLockedValueBox([String: [PurchaseStep: ContinuousClock.Instant]]())

        func record(_ step: PurchaseStep, _ transactionID: String) {
            let now = ContinuousClock.now
            moments.withLockedValue { $0[transactionID, default: [:]][step] = now }
        }

        func take(_ transactionID: String) -> [PurchaseStep: ContinuousClock.Instant] {
            moments.withLockedValue { $0.removeValue(forKey: transactionID) } ?? [:]
        }
    }

    /// One stretch of the window, between two consecutive moments.
    public struct Stage: Sendable, Codable {
        /// `paid → journaled`, …, `returned → balance shown`.
        public var stage: String
        /// What happens in it.
        public var work: String
        public var latency: Latency
    }

    /// The moments a purchase passes, in order, and what happens between each and the next.
    static let stages: [(from: String, to: String, work: String)] = [
        ("paid", "journaled", "the transaction is written to the device's journal"),
        (
            "journaled", "delivered",
            "the delivery credits it: on the device, verification and the ledger's commit; "
                + "against the server, POST /v1/me/purchases"
        ),
        ("delivered", "recorded", "the journal records the delivery"),
        ("recorded", "finished", "the store is told to finish the transaction"),
        ("finished", "returned", "the journal records the finish, the account state is updated, the call returns"),
        ("returned", "balance shown", "account(), as an app calls it, shows the new balance"),
    ]

    static func measure(
        _ mode: Mode, context: Context, product: String, grant: Amount, delivery: any Delivery, database: LocalDatabase, scope: String,
        deviceFolder: URL, server: String?, health: (@Sendable () async throws -> Void)?
    ) async throws -> ModeResult {
        let appStore = try context.appStore()
        let store = SimulatedStoreKit(appStore)
        let steps = StepMoments()
        var configuration = PurchaseManager.Configuration(productIDs: [product])
        configuration.language = .english
        configuration.refreshInterval = nil
        // One delivery attempt inside the call: a failure is reported, never hidden by a retry.
        configuration.attemptsDuringPurchase = 1
        configuration.scope = scope
        configuration.checkpoint = { step, transactionID in steps.record(step, transactionID) }
        let manager = try await PurchaseManager(
            store: store, delivery: delivery, database: database, configuration: configuration,
            connectivity: ManualConnectivity(online: true))
        await manager.start()
        // Nothing left from before runs beside the purchases measured.
        await manager.waitUntilCaughtUp()
        do {
            let result = try await measure(
                mode, context: context, manager: manager, product: product, grant: grant,
                deviceFolder: deviceFolder, server: server, health: health, steps: steps)
            await manager.stop()
            return result
        } catch {
            await manager.stop()
            throw error
        }
    }

    static func measure(
        _ mode: Mode, context: Context, manager: PurchaseManager, product: String, grant: Amount, deviceFolder: URL, server: String?,
        health: (@Sendable () async throws -> Void)?, steps: StepMoments
    ) async throws -> ModeResult {
        let options = context.options
        var expected = try await manager.account(.fetchCurrent).balance(grant.currency).available
        /// One purchase, as a tap on the buy button: the whole call, then each stage from `.paid` to the balance shown, in nanoseconds.
        func purchase() async throws -> (call: UInt64, stages: [UInt64]) {
            let start = ContinuousClock.now
            let outcome = try await manager.purchase(product)
            let returned = ContinuousClock.now
            guard case .purchased(let receipt) = outcome else {
                throw Failure(description: "\(mode.rawValue): a purchase of \(product) ended \(outcome), not purchased")
            }
            let moments = steps.take(receipt.transactionID)
            let checkpoints: [PurchaseStep] = [.paid, .journaled, .delivered, .recorded, .finished]
            guard checkpoints.allSatisfy({ moments[$0] != nil }) else {
                throw Failure(description: "\(mode.rawValue): transaction \(receipt.transactionID) passed only \(moments.keys.map(\.rawValue).sorted())")
            }
            expected += grant.amount
            let shown = try await manager.account().balance(grant.currency).available
            let usable = ContinuousClock.now
            guard shown == expected else {
                throw Failure(description: "\(mode.rawValue): after transaction \(receipt.transactionID) the balance shows \(shown), not \(expected)")
            }
            let instants = checkpoints.map { moments[$0]! } + [returned, usable]
            return (nanoseconds(returned - start), zip(instants, instants.dropFirst()).map { nanoseconds($1 - $0) })
        }

        context.progress("\(mode.rawValue): warming up with \(options.warmUp) purchases…")
        for _ in 0..<options.warmUp { _ = try await purchase() }

        let rounds = max(1, min(options.rounds, options.purchases))
        let fsyncFile = deviceFolder.appendingPathComponent("fsync-baseline.bin")
        var calls: [UInt64] = [], returned: [UInt64] = [], usable: [UInt64] = []
        var stageSamples = [[UInt64]](repeating: [], count: stages.count)
        var writes: [UInt64] = [], healths: [UInt64] = []
        var fsyncRatios: [Double] = [], healthRatios: [Double] = []
        var roundP50: [Double] = [], roundP99: [Double] = []
        for round in 0..<rounds {
            let roundWrites = try DurableWriteBaseline.measure(options.baselineSamples, file: fsyncFile)
            var roundHealths: [UInt64] = []
            if let health {
                for _ in 0..<options.baselineSamples {
                    let start = ContinuousClock.now
                    try await health()
                    roundHealths.append(nanoseconds(ContinuousClock.now - start))
                }
            }
            let count = options.purchases / rounds + (round < options.purchases % rounds ? 1 : 0)
            var roundUsable: [UInt64] = []
            for _ in 0..<count {
                let (call, parts) = try await purchase()
                calls.append(call)
                returned.append(parts.dropLast().reduce(0, +))
                roundUsable.append(parts.reduce(0, +))
                for (index, part) in parts.enumerated() { stageSamples[index].append(part) }
            }
            usable += roundUsable
            writes += roundWrites
            healths += roundHealths
            let latency = Latency(roundUsable)
            roundP50.append(latency.p50Milliseconds)
            roundP99.append(latency.p99Milliseconds)
            fsyncRatios.append(latency.p50Milliseconds / max(Latency(roundWrites).p50Milliseconds, 1e-9))
            if !roundHealths.isEmpty { healthRatios.append(latency.p50Milliseconds / max(Latency(roundHealths).p50Milliseconds, 1e-9)) }
            context.progress(
                String(
                    format: "%@: round %d/%d: %d purchases, paid → usable p50 %.2f ms p99 %.2f ms; durable write p50 %.2f ms",
                    mode.rawValue, round + 1, rounds, count, latency.p50Milliseconds, latency.p99Milliseconds,
                    Latency(roundWrites).p50Milliseconds))
        }
        try? FileManager.default.removeItem(at: fsyncFile)

        // What the delivery itself says now, not the cache: every measured credit is there.
        let final = try await manager.account(.fetchCurrent).balance(grant.currency).available
        guard final == expected else {
            throw Failure(description: "\(mode.rawValue): a fresh fetch shows \(final) \(grant.currency), not \(expected)")
        }
        return ModeResult(
            mode: mode.rawValue, product: product, currency: grant.currency, grantPerPurchase: grant.amount, purchases: usable.count,
            warmUp: options.warmUp, rounds: rounds, server: server, paidToUsable: Latency(usable), paidToReturned: Latency(returned),
            purchaseCall: Latency(calls), durableWrite: Latency(writes), healthRoundTrip: health == nil ? nil : Latency(healths),
            usableP50ToDurableWriteP50: median(fsyncRatios), usableP50ToHealthP50: healthRatios.isEmpty ? nil : median(healthRatios),
            stages: zip(stages, stageSamples).map { Stage(stage: "\($0.from) → \($0.to)", work: $0.work, latency: Latency($1)) },
            roundP50Milliseconds: roundP50, roundP99Milliseconds: roundP99, finalBalance: final, expectedBalance: expected)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
