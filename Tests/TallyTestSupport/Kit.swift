public import Foundation
public import TallyCore
public import TallyKit
public import TallyKitTesting
public import TallyTesting
public import TallyVerify

/// What TallyKit's tests share, in both packages: one certificate authority, the example
/// catalogs, a start date, the Zorya app's reports.
public enum Kit: Sendable {
    /// When the phone's and the store's clocks start: 2026-03-01.
    public static let start = ISO8601DateFormatter().date(from: "2026-03-01T00:00:00Z")!
    /// The example app.
    public static let bundleID = "com.tally.example"
    /// The example app's App Apple ID.
    public static let appAppleID: Int64 = 6_450_000_001
    /// The authority that signs the store's data, minted a day before ``start``.
    public static let authority: TestCertificateAuthority = try! TestCertificateAuthority(
        profile: .init(issuedAt: start.addingTimeInterval(-86_400)))
    /// The example StoreKit configuration.
    public static let storeCatalog: StoreKitConfiguration = try! StoreKitConfiguration.load(
        contentsOf: Repository.root.appendingPathComponent("Examples/Tally.storekit"))
    /// The example `tally.json`.
    public static let catalogFile = Repository.root.appendingPathComponent("Examples/tally.json")
    /// The example catalog as the device reads it.
    public static let onDeviceCatalog: OnDeviceCatalog = try! OnDeviceCatalog.load(contentsOf: catalogFile)

    /// The Zorya app's reports.
    public static let reports = ["personality", "career", "relationship", "wellness"]
    /// A report's product id.
    /// - Parameter name: one of ``reports``.
    /// - Returns: its product id.
    public static func report(_ name: String) -> String { "com.tally.zorya.report.\(name)" }

    /// The device's verifier, trusting the test authority (explicitly, as only tests may).
    /// - Parameter now: the verifier's clock.
    /// - Returns: a verifier for the example app.
    public static func verifier(now: @escaping @Sendable () -> Date) -> SignedDataVerifier {
        SignedDataVerifier(
            .init(
                bundleID: .equals(bundleID), appAppleID: .equals(appAppleID), environments: [.sandbox, .production],
                rootCertificates: [authority.root]),
            now: now)
    }
}

/// One customer's phone with the example store (see `SimulatedDevice`).
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public typealias Device = SimulatedDevice

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedDevice {
    /// A phone whose App Store sells the example catalog, on `time`.
    /// - Parameters:
    ///   - time: the phone's clock.
    ///   - locale: the phone's locale.
    ///   - storeKit1: whether the app uses StoreKit 1.
    ///   - settings: changes to the store's settings.
    /// - Throws: when the store cannot be made.
    public convenience init(
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
    /// - Parameter days: whole days.
    /// - Throws: what the store's clock throws.
    public func advance(days: Int) async throws {
        try await advance(by: .seconds(days * 86_400))
    }

    /// Lets `seconds` of real time pass.
    /// - Parameter seconds: whole seconds.
    /// - Throws: what the store's clock throws.
    public func advance(seconds: Int) async throws {
        try await advance(by: .seconds(seconds))
    }

    /// The test's configuration: its retry policy, no refresh loop, English, alarms silent.
    /// - Parameters:
    ///   - productIDs: the products the app sells.
    ///   - configure: changes the test makes.
    /// - Returns: the configuration.
    public static func configuration(
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
    /// - Parameters:
    ///   - delivery: where purchases are delivered.
    ///   - database: the phone's database.
    ///   - productIDs: the products the app sells.
    ///   - configure: changes the test makes to ``configuration(productIDs:_:)``.
    /// - Returns: the started manager.
    /// - Throws: what launching throws.
    public func launch(
        delivery: any Delivery, database: LocalDatabase, productIDs: [String], _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> PurchaseManager {
        try await launch(delivery: delivery, database: database, configuration: Self.configuration(productIDs: productIDs, configure))
    }

    /// The app's manager, made but not started.
    /// - Parameters:
    ///   - delivery: where purchases are delivered.
    ///   - database: the phone's database.
    ///   - productIDs: the products the app sells.
    ///   - configure: changes the test makes to ``configuration(productIDs:_:)``.
    /// - Returns: the manager.
    /// - Throws: what making it throws.
    public func manager(
        delivery: any Delivery, database: LocalDatabase, productIDs: [String], _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> PurchaseManager {
        try await manager(delivery: delivery, database: database, configuration: Self.configuration(productIDs: productIDs, configure))
    }
}

extension PurchaseManager {
    /// The purchase's receipt, failing the test for any other outcome.
    /// - Parameters:
    ///   - productID: the product.
    ///   - quantity: how many.
    /// - Returns: the delivery's receipt.
    /// - Throws: ``KitTestFailure`` when the outcome is not a purchase.
    public func buy(_ productID: String, quantity: Int = 1) async throws -> DeliveryReceipt {
        let outcome = try await purchase(productID, quantity: quantity)
        guard case .purchased(let receipt) = outcome else {
            throw KitTestFailure("expected a purchase, got \(outcome)")
        }
        return receipt
    }

    /// The balance of `currency` the account has now.
    /// - Parameter currency: a currency of the catalog.
    /// - Returns: what is available.
    /// - Throws: what reading the account throws.
    public func available(_ currency: String) async throws -> Int64 {
        try await account(.fetchCurrent).balance(currency).available
    }
}

/// A test's expectation that failed, with what was found.
public struct KitTestFailure: Error, CustomStringConvertible {
    /// What was expected and found.
    public let description: String
    /// - Parameter description: what was expected and found.
    public init(_ description: String) { self.description = description }
}
