public import Foundation
import TallyCore
public import TallyVerify

#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// The short ways to make a manager, one per mode, with the defaults an app wants.
extension PurchaseManager {
    /// A manager that credits purchases on the device, verified there (no backend).
    ///
    /// Fills in what an app would otherwise type by hand, and get wrong: the bundle identifier
    /// from `Bundle.main`, the Production and Sandbox environments (App Review and TestFlight buy
    /// in the Sandbox), Apple's roots for signed transactions and for app receipts (StoreKit 1),
    /// the device's identifiers each is bound to, the database in Application Support, and the
    /// store for the system (``DeviceStore/automatic(productKinds:)``). Call ``start()`` next.
    ///
    /// ```swift
    /// let catalog = try OnDeviceCatalog.load(contentsOf: Bundle.main.url(forResource: "tally", withExtension: "json")!)
    /// #if DEBUG   // Xcode's StoreKit testing: its certificate, saved with Editor ▸ Save Public Certificate
    /// let xcode = Bundle.main.url(forResource: "StoreKitTestCertificate", withExtension: "cer").flatMap { try? Data(contentsOf: $0) }
    /// #else
    /// let xcode: Data? = nil
    /// #endif
    /// let manager = try await PurchaseManager.onDevice(catalog: catalog, appAppleID: 6_450_000_000, xcodeTestingCertificate: xcode)
    /// await manager.start()
    /// ```
    ///
    /// - Parameters:
    ///   - catalog: what the app sells; its products are the ones the manager sells.
    ///   - appAppleID: the app's Apple ID (App Store Connect ▸ App Information ▸ Apple ID), which
    ///     Production transactions carry.
    ///   - bundleID: the bundle identifier purchases must name; `Bundle.main`'s by default.
    ///   - xcodeTestingCertificate: Xcode's StoreKit testing certificate (DER, a `.cer` file), to
    ///     accept purchases made in Xcode. Give it in Debug builds only: anyone can make such a
    ///     certificate. Without it every Xcode purchase is refused (and logged as a fault).
    ///   - configuration: how the manager behaves; by default it sells every product of `catalog`.
    ///   - store: where purchases are made; ``DeviceStore/automatic(productKinds:)`` by default
    ///     (on a system without StoreKit, a store must be given).
    ///   - database: the device's database; ``LocalDatabase/standard(named:)`` by default.
    ///   - deviceIdentifier: what app receipts are bound to; `identifierForVendor` on iOS, tvOS
    ///     and visionOS by default, none elsewhere.
    ///   - deviceVerificationID: what StoreKit 2 binds signed data to;
    ///     ``DeviceStore/deviceVerificationID`` by default.
    ///   - trust: changes the two verifiers' configurations before they are made (online
    ///     revocation checking; a test root in tests).
    ///   - now: the current time.
    /// - Returns: the manager, not started.
    /// - Throws: ``TallyError`` `configuration_invalid` when there is no bundle identifier, no
    ///   store, or the Xcode certificate does not parse; `invalid_request` for a catalog with a
    ///   problem; `storage_failed` when the database cannot be opened.
    public static func onDevice(
        catalog: OnDeviceCatalog, appAppleID: Int64, bundleID: String? = nil, xcodeTestingCertificate: Data? = nil,
        configuration: Configuration? = nil, store: (any Store)? = nil, database: LocalDatabase? = nil,
        deviceIdentifier: DeviceIdentifier? = nil, deviceVerificationID: UUID? = nil,
        trust: (inout SignedDataVerifier.Configuration, inout ReceiptVerifier.Configuration) -> Void = { _, _ in },
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(TallyError) -> PurchaseManager {
        guard let bundleID = bundleID ?? Bundle.main.bundleIdentifier else {
            throw TallyError(
                .configurationInvalid, "Bundle.main has no bundle identifier (not an app?): pass bundleID", detail: "no_bundle_id")
        }
        var signed = SignedDataVerifier.Configuration(
            bundleID: .equals(bundleID), appAppleID: .equals(appAppleID), environments: [.production, .sandbox])
        var receipts = ReceiptVerifier.Configuration(bundleID: .equals(bundleID), environments: [.production, .sandbox])
        if let certificate = xcodeTestingCertificate {
            do throws(VerificationFailure) {
                try signed.acceptXcodeTesting(certificate: certificate)
                try receipts.acceptXcodeTesting(certificate: certificate)
            } catch {
                throw TallyError(.configurationInvalid, "xcodeTestingCertificate: \(error.reason)", detail: error.code.rawValue)
            }
        }
        trust(&signed, &receipts)
        let store = try systemStore(store, catalog)
        let database = try await opened(database)
        var identifier = deviceIdentifier
        if identifier == nil { identifier = await vendorIdentifier() }
        let ledger = try await OnDeviceLedger(
            database: database, catalog: catalog, verifier: SignedDataVerifier(signed, now: now),
            receiptVerifier: ReceiptVerifier(receipts, now: now), deviceIdentifier: identifier,
            deviceVerificationID: deviceVerificationID ?? storeDeviceVerificationID(), now: now)
        return try await PurchaseManager(
            store: store, delivery: ledger, database: database,
            configuration: configuration ?? Configuration(productIDs: catalog.products.map(\.id)), now: now)
    }

    /// A manager that credits purchases on a Tally server, which verifies them.
    ///
    /// Fills in the store for the system, the database in Application Support, and keeps caches
    /// and onboarding per user (``Configuration/scope`` is the credentials' user id). Call
    /// ``start()`` next.
    ///
    /// ```swift
    /// let server = URL(string: "https://tally.example.com")!
    /// let credentials = try await ServerDelivery.register(baseURL: server)   // once; keep it in the Keychain
    /// let manager = try await PurchaseManager.server(url: server, credentials: credentials, productIDs: ["com.tally.photo.credits.50"])
    /// await manager.start()
    /// ```
    ///
    /// - Parameters:
    ///   - url: the server's base URL.
    ///   - credentials: the user's, from ``ServerDelivery/register(baseURL:transport:)``.
    ///   - productIDs: the products the app sells (ignored when `configuration` is given).
    ///   - configuration: how the manager behaves; its scope is yours to set when given.
    ///   - store: where purchases are made; ``DeviceStore/automatic(productKinds:)`` by default.
    ///   - database: the device's database; ``LocalDatabase/standard(named:)`` by default.
    ///   - responseCheck: whether the server's answers must carry its signature.
    ///   - transport: how requests are sent; `URLSession` by default.
    ///   - now: the current time.
    /// - Returns: the manager, not started.
    /// - Throws: ``TallyError`` `configuration_invalid` when there is no store, `storage_failed`
    ///   when the database cannot be opened.
    public static func server(
        url: URL, credentials: ServerDelivery.Credentials, productIDs: [String], configuration: Configuration? = nil,
        store: (any Store)? = nil, database: LocalDatabase? = nil, responseCheck: ServerDelivery.ResponseCheck = .off,
        transport: any HTTPTransport = URLSessionTransport(), now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(TallyError) -> PurchaseManager {
        var settings = configuration ?? Configuration(productIDs: productIDs)
        if configuration == nil { settings.scope = credentials.userID }
        let store = try systemStore(store, nil)
        let database = try await opened(database)
        let delivery = ServerDelivery(baseURL: url, credentials: credentials, transport: transport, responseCheck: responseCheck)
        return try await PurchaseManager(store: store, delivery: delivery, database: database, configuration: settings, now: now)
    }

    private static func opened(_ database: LocalDatabase?) async throws(TallyError) -> LocalDatabase {
        if let database { return database }
        return try await LocalDatabase.standard()
    }

    /// The store given, else the system's; there is none without StoreKit.
    private static func systemStore(_ given: (any Store)?, _ catalog: OnDeviceCatalog?) throws(TallyError) -> any Store {
        if let given { return given }
        #if canImport(StoreKit)
        return DeviceStore.automatic(productKinds: catalog?.kinds ?? [:])
        #else
        throw TallyError(.configurationInvalid, "this platform has no StoreKit: pass a store", detail: "no_store")
        #endif
    }

    /// `identifierForVendor`, which app receipts are bound to on iOS, tvOS and visionOS.
    private static func vendorIdentifier() async -> DeviceIdentifier? {
        #if canImport(UIKit) && !os(watchOS)
        return await MainActor.run { UIDevice.current.identifierForVendor }.map(DeviceIdentifier.init(uuid:))
        #else
        return nil
        #endif
    }

    private static func storeDeviceVerificationID() -> UUID? {
        #if canImport(StoreKit)
        return DeviceStore.deviceVerificationID
        #else
        return nil
        #endif
    }
}
