public import Foundation
public import TallyKit
public import TallyTesting
public import TallyVerify

/// One customer's phone, for tests of an app's purchase flows: the App Store account (which
/// outlives the app), the app's folder (whose database survives launches and is lost on
/// reinstall), the clock setting the person can change, the time since the phone started, its
/// network and the app's analytics.
///
/// Time passes for everyone at once through a shared ``ManualDate``: the simulated App Store,
/// the phone and a server in the same test read it. The phone's own clock is that time plus
/// ``clockOffset``, so a test can move the phone's clock without moving time.
///
/// ```swift
/// let time = ManualDate(start)
/// let appStore = try SimulatedAppStore(configuration: configuration, authority: authority, time: .manual(start: start))
/// let device = SimulatedDevice(appStore: appStore, time: time)
/// let manager = try await device.launch(delivery: ledger, database: try await device.database(), configuration: .init(productIDs: ids))
/// device.clockOffset = 2 * 86_400          // the person sets the clock two days ahead
/// device.reinstall()                      // the app is deleted and installed again
/// ```
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public final class SimulatedDevice: @unchecked Sendable {
    /// The real time, shared with the App Store and any server in the test.
    public let time: ManualDate
    /// The customer's App Store, which outlives the app.
    public let appStore: SimulatedAppStore
    /// TallyKit's store over it.
    public let store: SimulatedStoreKit
    /// The phone's identifier for the app's vendor (`identifierForVendor`), which its app
    /// receipts are bound to.
    public let identifier: DeviceIdentifier
    /// The phone's `AppStore.deviceVerificationID`, which StoreKit 2 binds the JWS it hands the
    /// app to (``SimulatedStoreKit/deviceVerificationID``); an on-device ledger checks it.
    public let deviceVerificationID: UUID
    /// The clock of the app's sleeps (backoff, refresh): it moves only when the test advances it.
    public let clock = ManualClock()
    /// Whether the phone is online.
    public let connectivity = ManualConnectivity()
    /// What the app reported to its analytics.
    public let analytics = AnalyticsStream()
    /// What the app's on-device ledger grants for each product (a `tally.json`), when the phone
    /// was made with one (``init(storeKitFile:catalogFile:start:locale:storeKit1:)``); ``launch(productIDs:configure:)`` uses it.
    public let catalog: OnDeviceCatalog?
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    private var appFolder: URL
    private var booted: Date

    /// - Parameters:
    ///   - appStore: the customer's simulated App Store.
    ///   - time: the shared real time.
    ///   - locale: the customer's locale (`en_US`, `uk_UA`), for product names and prices.
    ///   - storeKit1: the app buys with StoreKit 1, as below iOS 15: app receipts prove purchases.
    ///   - catalog: what the app's on-device ledger grants for each product, for ``launch(productIDs:configure:)``.
    public init(appStore: SimulatedAppStore, time: ManualDate, locale: String = "en_US", storeKit1: Bool = false, catalog: OnDeviceCatalog? = nil) {
        self.time = time
        self.appStore = appStore
        self.catalog = catalog
        let identifier = DeviceIdentifier(uuid: UUID())
        self.identifier = identifier
        // Not the vendor identifier: a test that passed one for the other would fail.
        let verificationID = UUID()
        self.deviceVerificationID = verificationID
        self.store = SimulatedStoreKit(
            appStore, locale: locale, api: storeKit1 ? .storeKit1(device: identifier) : .storeKit2, now: { time.now },
            deviceVerificationID: verificationID)
        self.booted = time.now.addingTimeInterval(-100)
        self.appFolder = Self.newFolder()
    }

    /// How far the phone's clock setting is from the real time, in seconds (the person changed it in Settings).
    public var clockOffset: TimeInterval {
        get { lock.withLock { offset } }
        set { lock.withLock { offset = newValue } }
    }

    /// The phone's clock as it shows: real time plus ``clockOffset``.
    public var now: Date { time.now.addingTimeInterval(clockOffset) }

    /// When the phone last started, on the real time line.
    public var bootedAt: Date { lock.withLock { booted } }

    /// Seconds since the phone started: real time passing, whatever its clock says.
    public var uptime: TimeInterval { time.now.timeIntervalSince(bootedAt) }

    /// The phone restarts: its uptime starts again from zero.
    public func reboot() {
        let now = time.now
        lock.withLock { booted = now }
    }

    /// The app's folder; a reinstall replaces it with an empty one.
    public var folder: URL { lock.withLock { appFolder } }

    /// The path of the app's database in its folder.
    public var databasePath: String { folder.appendingPathComponent("device.sqlite").path }

    /// The app deleted and installed again: its folder is new and empty; the App Store keeps
    /// the customer's purchases.
    public func reinstall() {
        let fresh = Self.newFolder()
        lock.withLock { appFolder = fresh }
    }

    /// Lets real time pass: the App Store's clock (renewals, expiries and notifications fall due
    /// on the way) and the shared time move together.
    public func advance(by duration: Duration) async throws {
        try await appStore.advance(by: duration)
        time.set(await appStore.now)
    }

    /// Opens the app's database (creating the folder the first time) and migrates it.
    /// - Returns: the database in the app's folder.
    /// - Throws: ``TallyError`` `storage_failed` when it cannot be opened.
    public func database() async throws(TallyError) -> LocalDatabase {
        try await LocalDatabase(path: databasePath)
    }

    /// The app's manager on this phone's store, clocks, network and analytics, made but not started.
    /// - Parameters:
    ///   - delivery: where purchases are credited.
    ///   - database: the app's database.
    ///   - configuration: products and behaviour.
    /// - Returns: the manager; call `start()` on it.
    public func manager(delivery: any Delivery, database: LocalDatabase, configuration: PurchaseManager.Configuration) async throws -> PurchaseManager {
        try await PurchaseManager(
            store: store, delivery: delivery, database: database, configuration: configuration, connectivity: connectivity,
            analytics: analytics, clock: clock, now: { [self] in now }, uptime: { [self] in uptime })
    }

    /// Launches the app: its manager, started and caught up with what earlier runs left
    /// (deliveries, spends, a refresh), so a test reads a settled state.
    /// - Parameters:
    ///   - delivery: where purchases are credited.
    ///   - database: the app's database.
    ///   - configuration: products and behaviour.
    /// - Returns: the started manager.
    public func launch(delivery: any Delivery, database: LocalDatabase, configuration: PurchaseManager.Configuration) async throws -> PurchaseManager {
        let manager = try await manager(delivery: delivery, database: database, configuration: configuration)
        await manager.start()
        await manager.waitUntilCaughtUp()
        return manager
    }

    private static func newFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tally-device-\(UUID().uuidString)")
    }
}
