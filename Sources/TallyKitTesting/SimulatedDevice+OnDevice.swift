public import Foundation
import TallyCore
public import TallyKit
import TallyTesting
import TallyVerify

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedDevice {
    /// The moment a phone made from files starts at, unless told otherwise: 1 March 2026, UTC.
    public static let defaultStart = Date(timeIntervalSince1970: 1_772_323_200)

    /// A phone whose simulated App Store sells what a StoreKit configuration file lists, signed
    /// by a certificate authority minted for the test, and whose app credits purchases on the
    /// device as a Tally catalog says: everything a first test of a purchase flow needs.
    ///
    /// ```swift
    /// let device = try SimulatedDevice(storeKitFile: storeKitFile, catalogFile: catalogFile)
    /// let manager = try await device.launch()
    /// _ = try await manager.purchase("com.tally.zorya.report.career")
    /// #expect(try await manager.balance(of: "report.career").available == 1)
    /// ```
    ///
    /// The App Store signs for the app the catalog's `app` names (`bundle_id`, `app_apple_id`),
    /// in the Sandbox environment, and ``onDeviceLedger(database:)`` trusts exactly that
    /// authority, that app and that environment.
    /// - Parameters:
    ///   - storeKitFile: the app's `.storekit` file (Xcode's StoreKit configuration): products, prices, subscriptions.
    ///   - catalogFile: the app's Tally catalog (`tally.json`): what each product grants and unlocks.
    ///   - start: the moment the test starts at; time moves only when the test advances it.
    ///   - locale: the customer's locale (`en_US`, `uk_UA`), for product names and prices.
    ///   - storeKit1: the app buys with StoreKit 1, as below iOS 15: app receipts prove purchases.
    /// - Throws: `StoreKitConfigurationError` for a `.storekit` file that cannot be read,
    ///   ``TallyError`` `invalid_request` for a catalog that cannot be read or has a problem.
    public convenience init(
        storeKitFile: URL, catalogFile: URL, start: Date = SimulatedDevice.defaultStart, locale: String = "en_US", storeKit1: Bool = false
    ) throws {
        let products = try StoreKitConfiguration.load(contentsOf: storeKitFile)
        let app: TallyCatalog.App
        do {
            app = try TallyCatalog.load(contentsOf: catalogFile).app
        } catch {
            throw TallyError(.invalidRequest, "the catalog \(catalogFile.path) is wrong: \(error.reason)")
        }
        let catalog = try OnDeviceCatalog.load(contentsOf: catalogFile)
        let authority = try TestCertificateAuthority(profile: .init(issuedAt: start.addingTimeInterval(-86_400)))
        let configuration = SimulatedAppStore.Configuration(catalog: products, bundleID: app.bundleID, appAppleID: app.appAppleID)
        let appStore = try SimulatedAppStore(configuration: configuration, authority: authority, time: .manual(start: start))
        self.init(appStore: appStore, time: ManualDate(start), locale: locale, storeKit1: storeKit1, catalog: catalog)
    }

    /// The app's on-device ledger in `database`: it grants what ``catalog`` says, trusts the
    /// simulated App Store's authority for the app it signs for, reads the phone's clock and
    /// uptime, and accepts only transactions bound to this phone.
    /// - Parameter database: the app's database (``database()``).
    /// - Returns: the ledger.
    /// - Throws: ``TallyError`` `invalid_request` when the phone has no ``catalog``; `storage_failed`.
    public func onDeviceLedger(database: LocalDatabase) async throws -> OnDeviceLedger {
        guard let catalog else {
            throw TallyError(.invalidRequest, "the phone has no catalog: make it with init(storeKitFile:catalogFile:)")
        }
        let time = self.time
        let app = appStore.configuration
        let environments: Set<AppStoreEnvironment> = [app.environment]
        let verifier = SignedDataVerifier(
            .init(
                bundleID: .equals(app.bundleID), appAppleID: app.appAppleID.map { .equals($0) } ?? .any, environments: environments,
                rootCertificates: [appStore.authority.root]),
            now: { time.now })
        var receiptVerifier: ReceiptVerifier?
        if case .storeKit1 = store.api {
            receiptVerifier = ReceiptVerifier(
                .init(bundleID: .equals(app.bundleID), environments: environments, rootCertificates: [try await appStore.receiptAuthority().root]),
                now: { time.now })
        }
        return try await OnDeviceLedger(
            database: database, catalog: catalog, verifier: verifier, receiptVerifier: receiptVerifier, deviceIdentifier: identifier,
            deviceVerificationID: deviceVerificationID, now: { [self] in now }, uptime: { [self] in uptime })
    }

    /// Launches the app with its ledger on the device (``onDeviceLedger(database:)``): its
    /// database in the app's folder, its manager started and caught up with what earlier runs
    /// left. After ``reinstall()`` the next launch starts from an empty folder.
    /// - Parameters:
    ///   - productIDs: the products the app sells; every product of the `.storekit` file by default.
    ///   - configure: changes to the manager's configuration (`onboardingEntitlement`, say).
    /// - Returns: the started manager.
    /// - Throws: ``TallyError`` `invalid_request` when the phone has no ``catalog``; `storage_failed`.
    public func launch(
        productIDs: [String]? = nil, configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> PurchaseManager {
        let database = try await database()
        let ledger = try await onDeviceLedger(database: database)
        var configuration = PurchaseManager.Configuration(productIDs: productIDs ?? appStore.configuration.catalog.products.map(\.id))
        configure(&configuration)
        return try await launch(delivery: ledger, database: database, configuration: configuration)
    }
}
