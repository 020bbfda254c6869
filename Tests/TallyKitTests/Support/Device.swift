import Foundation
import TallyCore
import TallyKit
import TallyKitTesting
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
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
typealias Device = SimulatedDevice

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
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
        // Tests refuse purchases on purpose: logged, without the Debug build's assertion.
        configuration.log = TallyLog(alarm: TallyLog.silent)
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

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedDevice {
    /// The ledger reads the phone's clock, as an app's does; its trusted time runs on uptime.
    /// It verifies app receipts against the simulated store's receipt chain, issued to
    /// `receiptDevice` (this phone by default).
    /// The device's ledger, checking app receipts against `receiptDevice` and StoreKit 2's JWS
    /// against `verificationDevice` (this phone's by default).
    func onDeviceLedger(
        _ database: LocalDatabase, receiptDevice: DeviceIdentifier? = nil, verificationDevice: UUID? = nil
    ) async throws -> OnDeviceLedger {
        let time = self.time
        let receiptVerifier = ReceiptVerifier(
            .init(bundleID: .equals(Kit.bundleID), environments: [.sandbox, .production], rootCertificates: [try await appStore.receiptAuthority().root]),
            now: { time.now })
        return try await OnDeviceLedger(
            database: database, catalog: Kit.onDeviceCatalog, verifier: Kit.verifier { time.now }, receiptVerifier: receiptVerifier,
            deviceIdentifier: receiptDevice ?? identifier, deviceVerificationID: verificationDevice ?? deviceVerificationID, now: { [self] in now },
            uptime: { [self] in uptime })
    }

    /// The app launched with on-device delivery.
    func launchOnDevice(_ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }) async throws -> (PurchaseManager, OnDeviceLedger) {
        let database = try await database()
        let ledger = try await onDeviceLedger(database)
        let manager = try await launch(delivery: ledger, database: database, productIDs: Kit.reports.map(Kit.report) + ["com.tally.zorya.lifetime"], configure)
        return (manager, ledger)
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
