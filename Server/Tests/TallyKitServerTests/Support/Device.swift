import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallyKit
import TallyKitTesting
import TallySQL
import TallyServer
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Shared fixtures: one certificate authority, the example catalogs, a start date.
enum Kit {
    static let start = ISO8601DateFormatter().date(from: "2026-03-01T00:00:00Z")!
    static let bundleID = "com.tally.example"
    static let appAppleID: Int64 = 6_450_000_001
    static let authority: TestCertificateAuthority = try! TestCertificateAuthority(profile: .init(issuedAt: start.addingTimeInterval(-86_400)))
    static let storeCatalog: StoreKitConfiguration = try! StoreKitConfiguration.load(
        contentsOf: Repository.root.appendingPathComponent("Examples/Tally.storekit"))
    static let catalogFile = Repository.root.appendingPathComponent("Examples/tally.json")
    static let onDeviceCatalog: OnDeviceCatalog = try! OnDeviceCatalog.load(contentsOf: catalogFile)

    static let reports = ["personality", "career", "relationship", "wellness"]
    static func report(_ name: String) -> String { "com.tally.zorya.report.\(name)" }

    /// The device's verifier, trusting the test authority (explicitly, as only tests may).
    static func verifier(now: @escaping @Sendable () -> Date) -> SignedDataVerifier {
        SignedDataVerifier(
            .init(
                bundleID: .equals(bundleID), appAppleID: .equals(appAppleID), environments: [.sandbox, .production],
                rootCertificates: [authority.root]),
            now: now)
    }
}

/// One customer's phone with the example store (see `SimulatedDevice`).
typealias Device = SimulatedDevice

extension SimulatedDevice {
    /// A phone whose App Store sells the example catalog, on `time`.
    convenience init(
        time: ManualDate = ManualDate(Kit.start), locale: String = "en_US", storeKit1: Bool = false,
        settings: (@Sendable (inout SimulatedAppStore.Settings) -> Void)? = nil
    ) async throws {
        var configuration = SimulatedAppStore.Configuration(catalog: Kit.storeCatalog, bundleID: Kit.bundleID, appAppleID: Kit.appAppleID)
        configuration.firstTransactionNumber = 2_000_000_700_000_000 + Int64.random(in: 0..<1_000_000) * 100
        let appStore = try SimulatedAppStore(configuration: configuration, authority: Kit.authority, time: .manual(start: time.now))
        if let settings { try await appStore.updateSettings(settings) }
        self.init(appStore: appStore, time: time, locale: locale, storeKit1: storeKit1)
    }

    /// Lets `days` of real time pass.
    func advance(days: Int) async throws {
        try await advance(by: .seconds(days * 86_400))
    }

    /// Lets `seconds` of real time pass.
    func advance(seconds: Int) async throws {
        try await advance(by: .seconds(seconds))
    }

    /// The test's configuration: its retry policy, no refresh loop, English.
    static func configuration(
        productIDs: [String], _ configure: (inout PurchaseManager.Configuration) -> Void
    ) -> PurchaseManager.Configuration {
        var configuration = PurchaseManager.Configuration(productIDs: productIDs)
        configuration.language = .english
        configuration.retry = RetryPolicy(initialDelay: 1, maximumDelay: 60, jitter: false)
        configuration.refreshInterval = nil
        configure(&configuration)
        return configuration
    }

    /// The app launched: started, and caught up with what earlier runs left.
    func launch(
        delivery: any Delivery, database: LocalDatabase, productIDs: [String], _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> PurchaseManager {
        try await launch(delivery: delivery, database: database, configuration: Self.configuration(productIDs: productIDs, configure))
    }

    /// The app's manager, made but not started.
    func manager(
        delivery: any Delivery, database: LocalDatabase, productIDs: [String], _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> PurchaseManager {
        try await manager(delivery: delivery, database: database, configuration: Self.configuration(productIDs: productIDs, configure))
    }
}

/// A Tally server running on loopback for the length of a test, on SQLite, with the test
/// authority trusted and the device's clock.
struct LiveServer: Sendable {
    let baseURL: URL
    let storage: SQLStorage

    static let catalog: TallyCatalog = try! TallyCatalog.load(contentsOf: Kit.catalogFile)

    /// Runs a server on loopback; it verifies app receipts signed by `receiptAuthority`.
    static func run(
        time: ManualDate, receiptAuthority: TestReceiptAuthority? = nil, responseSigningKey: ResponseSigningKey? = nil,
        _ body: @Sendable (LiveServer) async throws -> Void
    ) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tally-kit-server-\(UUID().uuidString).sqlite").path
        let database = try SQLiteDatabase(path: path)
        try await database.migrate(Migrations.all)
        let storage = SQLStorage(database: database, catalog: catalog, now: { time.now })
        let verifier = SignedDataVerifier(
            .init(
                bundleID: .equals(Kit.bundleID), appAppleID: .equals(Kit.appAppleID), environments: [.sandbox, .production],
                rootCertificates: [Kit.authority.root]),
            now: { time.now })
        var configuration = ServerConfiguration(database: .opened(database), catalog: catalog)
        configuration.now = { time.now }
        configuration.verifier = verifier
        if let receiptAuthority {
            configuration.receiptVerifier = ReceiptVerifier(
                .init(bundleID: .equals(Kit.bundleID), environments: [.sandbox, .production], rootCertificates: [receiptAuthority.root]),
                now: { time.now })
        }
        configuration.secretKey = "kit-secret"
        configuration.responseSigningKey = responseSigningKey
        configuration.reservationSweepInterval = nil
        configuration.logger.logLevel = .warning
        try await buildApplication(configuration: configuration).test(.live) { client in
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
    func heal() {
        lock.withLock {
            always = nil
            failures.removeAll()
        }
    }
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
