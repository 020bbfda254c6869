import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallyKit
import TallyKitTesting
import TallyServer
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// Shared fixtures: one certificate authority, the example catalogs, a start date.
enum Kit {
    static let start = ISO8601DateFormatter().date(from: "2026-03-01T00:00:00Z")!
    static let bundleID = "com.tally.example"
    static let appAppleID: Int64 = 6_450_000_001
    static let authority: TestCertificateAuthority = try! TestCertificateAuthority(profile: .init(issuedAt: start.addingTimeInterval(-86_400)))
    static let storeCatalog: StoreKitConfiguration = try! StoreKitConfiguration.load(
        contentsOf: Vectors.repository.appendingPathComponent("Examples/Tally.storekit"))
    static let catalogFile = Vectors.repository.appendingPathComponent("Examples/tally.json")
    static let onDeviceCatalog: OnDeviceCatalog = try! OnDeviceCatalog.load(contentsOf: catalogFile)

    static let reports = ["personality", "career", "relationship", "wellness"]
    static func report(_ name: String) -> String { "com.tally.zorya.report.\(name)" }

    /// The device's verifier, trusting the test authority (explicitly, as only tests may).
    static func verifier(now: @escaping @Sendable () -> Date) -> SignedDataVerifier {
        SignedDataVerifier(
            .init(bundleID: .equals(bundleID), appAppleID: .equals(appAppleID), environments: [.sandbox, .production],
                  rootCertificates: [authority.root]),
            now: now)
    }
}

/// A clock both the simulated store, the device and the server read.
final class SharedTime: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date = Kit.start) { current = start }
    var now: Date { lock.withLock { current } }
    func set(_ date: Date) { lock.withLock { current = date } }
    func advance(seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// One customer's phone: the App Store (which outlives the app), and the app's folder,
/// whose database survives restarts and is lost on reinstall.
final class Device: @unchecked Sendable {
    let time: SharedTime
    let appStore: SimulatedAppStore
    let store: SimulatedStore
    let clock = ManualClock()
    let connectivity = ManualConnectivity()
    let analytics = AnalyticsStream()
    private(set) var folder: URL
    private let offsetLock = NSLock()
    private var offset: TimeInterval = 0
    /// How far the phone's clock setting is from the real time (the person changed it in Settings).
    var clockOffset: TimeInterval {
        get { offsetLock.withLock { offset } }
        set { offsetLock.withLock { offset = newValue } }
    }
    /// The phone's clock as it shows: real time plus what the person set.
    var deviceNow: Date { time.now.addingTimeInterval(clockOffset) }
    /// Seconds since the phone started: real time passing, whatever its clock says.
    var uptime: TimeInterval { time.now.timeIntervalSince(Kit.start) + 100 }
    var databasePath: String { folder.appendingPathComponent("device.sqlite").path }

    init(time: SharedTime = SharedTime(), locale: String = "en_US", settings: (@Sendable (inout SimulatedAppStore.Settings) -> Void)? = nil) async throws {
        self.time = time
        var configuration = SimulatedAppStore.Configuration(catalog: Kit.storeCatalog, bundleID: Kit.bundleID, appAppleID: Kit.appAppleID)
        configuration.firstTransactionNumber = 2_000_000_700_000_000 + Int64.random(in: 0..<1_000_000) * 100
        appStore = try SimulatedAppStore(configuration: configuration, authority: Kit.authority, time: .manual(start: time.now))
        if let settings { try await appStore.updateSettings(settings) }
        store = SimulatedStore(appStore, locale: locale)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tally-device-\(UUID().uuidString)")
    }

    /// The app deleted and installed again: its folder is new and empty.
    func reinstall() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tally-device-\(UUID().uuidString)")
    }

    /// Moves the App Store's clock and the shared clock together.
    func advance(days: Int) async throws {
        try await advance(seconds: days * 86_400)
    }

    /// Moves the App Store's clock and the shared clock together.
    func advance(seconds: Int) async throws {
        try await appStore.advance(by: .seconds(seconds))
        time.set(await appStore.now)
    }

    func database() throws -> LocalDatabase { try LocalDatabase(path: databasePath) }

    /// The ledger reads the phone's clock, as an app's does; its trusted time runs on uptime.
    func onDeviceLedger(_ database: LocalDatabase) async throws -> OnDeviceLedger {
        let time = self.time
        return try await OnDeviceLedger(
            database: database, catalog: Kit.onDeviceCatalog, verifier: Kit.verifier { time.now }, now: { [self] in deviceNow },
            uptime: { [self] in uptime })
    }

    /// The app launched with on-device delivery (seed 000).
    func launchOnDevice(_ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }) async throws -> (PurchaseManager, OnDeviceLedger) {
        let database = try database()
        let ledger = try await onDeviceLedger(database)
        let manager = try await launch(delivery: ledger, database: database, productIDs: Kit.reports.map(Kit.report) + ["com.tally.zorya.lifetime"], configure)
        return (manager, ledger)
    }

    /// The app launched: started, and caught up with what earlier runs left.
    func launch(
        delivery: any Delivery, database: LocalDatabase, productIDs: [String], _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> PurchaseManager {
        let manager = try await manager(delivery: delivery, database: database, productIDs: productIDs, configure)
        await manager.start()
        await manager.waitUntilCaughtUp()
        return manager
    }

    /// The app's manager, made but not started.
    func manager(
        delivery: any Delivery, database: LocalDatabase, productIDs: [String], _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> PurchaseManager {
        var configuration = PurchaseManager.Configuration(productIDs: productIDs)
        configuration.language = .english
        configuration.retry = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), jitter: false)
        configuration.refreshInterval = nil
        configure(&configuration)
        let manager = try await PurchaseManager(
            store: store, delivery: delivery, database: database, configuration: configuration, connectivity: connectivity,
            analytics: analytics, clock: clock, now: { [self] in deviceNow }, uptime: { [self] in uptime })
        return manager
    }
}

/// A Tally server running on loopback for the length of a test, on SQLite, with the test
/// authority trusted and the device's clock.
struct LiveServer: Sendable {
    let baseURL: URL
    let storage: SQLStorage

    static let catalog: ServerCatalog = try! ServerCatalog.load(contentsOf: Kit.catalogFile)

    static func run(time: SharedTime, _ body: @Sendable (LiveServer) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tally-kit-server-\(UUID().uuidString).sqlite").path
        let database = try SQLiteDatabase(path: path)
        try await database.migrate(Migrations.all)
        let storage = SQLStorage(database: database, catalog: catalog, now: { time.now })
        let verifier = SignedDataVerifier(
            .init(bundleID: .equals(Kit.bundleID), appAppleID: .equals(Kit.appAppleID), environments: [.sandbox, .production],
                  rootCertificates: [Kit.authority.root]),
            now: { time.now })
        let router = TallyServerApp.buildRouter(ServerDependencies(
            storage: storage, verifier: verifier, catalog: catalog, secretKey: "kit-secret", now: { time.now }, healthCheck: { true }))
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(LiveServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, storage: storage))
        }
        await database.close()
    }
}

/// A transport that fails on purpose in front of the real one: no network, or a server error.
final class FlakyTransport: HTTPTransport, @unchecked Sendable {
    enum Failure { case offline, timeout, serverError, answerLost }
    private let lock = NSLock()
    private let real = URLSessionTransport()
    private var failures: [Failure] = []
    private var always: Failure?
    private(set) var requests: [String] = []

    /// The next calls fail with these, in order.
    func fail(_ failures: Failure...) { lock.withLock { self.failures += failures } }
    /// Every call fails with this until `heal()`.
    func failAlways(_ failure: Failure) { lock.withLock { always = failure } }
    func heal() { lock.withLock { always = nil; failures.removeAll() } }
    var requestCount: Int { lock.withLock { requests.count } }

    func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data) {
        let failure: Failure? = lock.withLock {
            requests.append("\(request.httpMethod ?? "GET") \(request.url?.path ?? "")")
            if let always { return always }
            return failures.isEmpty ? nil : failures.removeFirst()
        }
        switch failure {
        case .offline?: throw URLError(.notConnectedToInternet)
        case .timeout?: throw URLError(.timedOut)
        case .serverError?:
            return (503, [:], Data(#"{"error":{"code":"unavailable","message":"simulated outage","request_id":"test"}}"#.utf8))
        case .answerLost?:
            // The server does the work; the answer never reaches the device.
            _ = try await real.send(request)
            throw URLError(.networkConnectionLost)
        case nil:
            return try await real.send(request)
        }
    }
}

extension PurchaseManager {
    /// The purchase's receipt, failing the test for any other outcome.
    func buy(_ productID: String, quantity: Int = 1) async throws -> DeliveryReceipt {
        let outcome = try await purchase(productID, quantity: quantity)
        guard case .purchased(let receipt) = outcome else {
            throw KitTestFailure("expected a purchase, got \(outcome)")
        }
        return receipt
    }

    func available(_ currency: String) async throws -> Int64 {
        try await account(.fetchCurrent).balance(currency).available
    }
}

struct KitTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
