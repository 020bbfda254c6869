public import Foundation
public import TallyCore

/// An App Store that runs in your process: it sells the products of an Xcode StoreKit
/// configuration, signs real transactions, renewal info and notifications with a
/// ``TestCertificateAuthority``, renews subscriptions on a controllable clock, delivers App
/// Store Server Notifications V2, and answers the App Store Server API.
///
/// Everything it signs verifies with `TallyVerify` when the authority's root is trusted.
///
/// ```swift
/// let store = try SimulatedAppStore(
///     configuration: .init(catalog: try .load(contentsOf: url), bundleID: "com.example"),
///     authority: try TestCertificateAuthority(),
///     time: .manual(start: Date(timeIntervalSince1970: 1_767_225_600)))
/// guard case .success(let transaction) = try await store.purchase("com.example.credits.10") else { return }
/// try await store.advance(by: .seconds(31 * 86_400))   // a month later: renewals, notifications
/// ```
///
/// Re-entrancy: every method that changes state does so without suspending, then saves; only
/// notification delivery awaits, and one delivery pass runs at a time, re-reading state after
/// each attempt.
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public actor SimulatedAppStore {
    /// What the store sells and to which app.
    public struct Configuration: Sendable {
        /// The products and settings, from a `.storekit` file.
        public var catalog: StoreKitConfiguration
        /// The app's bundle identifier.
        public var bundleID: String
        /// The app's Apple ID (notifications carry it).
        public var appAppleID: Int64?
        /// The environment written into everything the store signs.
        public var environment: AppStoreEnvironment
        /// Where the store keeps its state; `nil` keeps it in memory only.
        public var stateFile: URL?
        /// Where notifications are posted; `nil` records them without delivering.
        public var notificationURL: URL?
        /// The delays between delivery attempts of a notification that failed, on the store's clock.
        public var retrySchedule: [Duration]
        /// Overrides the catalog's time rate.
        public var timeRate: TimeRate?
        /// The first transaction identifier; random by default, so stores never repeat each other's.
        public var firstTransactionNumber: Int64?
        /// The app version written into notifications.
        public var bundleVersion: String

        /// - Parameters:
        ///   - catalog: the products and settings.
        ///   - bundleID: the app's bundle identifier.
        ///   - appAppleID: the app's Apple ID.
        ///   - environment: Sandbox by default.
        public init(catalog: StoreKitConfiguration, bundleID: String, appAppleID: Int64? = nil, environment: AppStoreEnvironment = .sandbox) {
            self.catalog = catalog
            self.bundleID = bundleID
            self.appAppleID = appAppleID
            self.environment = environment
            self.stateFile = nil
            self.notificationURL = nil
            // Apple retries a failed V2 notification 5 times: 1, 12, 24, 48 and 72 hours after the previous attempt.
            self.retrySchedule = [1, 12, 24, 48, 72].map { .seconds($0 * 3600) }
            self.timeRate = nil
            self.firstTransactionNumber = nil
            self.bundleVersion = "1"
        }
    }

    /// Where the store's clock comes from.
    public enum Time: Sendable {
        /// Simulated time starting at `start`, moved only by ``SimulatedAppStore/advance(by:)``. For tests.
        case manual(start: Date)
        /// The given clock (the system's, in `tally appstore serve`), plus whatever ``SimulatedAppStore/advance(by:)`` added.
        case system(now: @Sendable () -> Date)
    }

    /// Behaviour that can change while the store runs, as SKTestSession's properties.
    public struct Settings: Sendable, Codable, Hashable {
        /// Purchases wait for a parent's approval.
        public var askToBuyEnabled: Bool
        /// Purchases need the customer's action outside the app before they complete.
        public var interruptedPurchasesEnabled: Bool
        /// Renewals fail with a billing issue and enter billing retry.
        public var billingRetryOnRenewal: Bool
        /// A failed renewal keeps access during a grace period.
        public var billingGracePeriodEnabled: Bool
        /// Purchases fail with this error.
        public var purchaseFailure: SimulatedAppStoreError.Code?
        /// The rate of time for subscription periods (Xcode's `SKTestSession.TimeRate` raw value).
        public var timeRate: Int
    }

    /// The configuration the store was made with.
    public nonisolated let configuration: Configuration
    /// The authority that signs everything.
    public nonisolated let authority: TestCertificateAuthority
    let transport: any NotificationTransport
    /// Signs app receipts; minted at the first receipt when the store was opened without one.
    var receiptSigner: TestReceiptAuthority?
    let baseNow: @Sendable () -> Date
    var state: StoreState
    var subscribers: [UUID: AsyncStream<SimulatedAppStore.SignedTransaction>.Continuation] = [:]
    var delivering = false
    /// Delivery attempts made by this process, so a pass that attempted nothing is noticed.
    var attemptsMade = 0
    /// Answers the App Store Server API gives before any real one (`failServerAPI`).
    var serverAPIFaults: [ServerAPIFault] = []
    /// Requests the App Store Server API answered.
    var serverAPIRequests = 0

    /// Opens the store, continuing from ``Configuration/stateFile`` when it exists.
    /// - Parameters:
    ///   - configuration: what it sells.
    ///   - authority: who signs.
    ///   - time: where its clock comes from.
    ///   - transport: how notifications travel; HTTP by default.
    ///   - receiptAuthority: who signs app receipts (StoreKit 1); one is minted at the first
    ///     receipt when `nil`, which a verifier can trust through ``receiptAuthority()``.
    /// - Throws: ``SimulatedAppStoreError`` with code `storage` when the state file exists but cannot be read.
    public init(
        configuration: Configuration, authority: TestCertificateAuthority, time: Time,
        transport: any NotificationTransport = URLSessionNotificationTransport(),
        receiptAuthority: TestReceiptAuthority? = nil
    ) throws(SimulatedAppStoreError) {
        self.configuration = configuration
        self.authority = authority
        self.transport = transport
        self.receiptSigner = receiptAuthority
        let catalogSettings = configuration.catalog.settings
        let settings = Settings(
            askToBuyEnabled: catalogSettings.askToBuyEnabled,
            interruptedPurchasesEnabled: catalogSettings.interruptedPurchasesEnabled,
            billingRetryOnRenewal: catalogSettings.billingIssuesEnabled,
            billingGracePeriodEnabled: catalogSettings.billingGracePeriodEnabled,
            purchaseFailure: catalogSettings.failTransactionsEnabled
                || catalogSettings.storeKitErrors.contains { $0.enabled && $0.api == StoreKitConfiguration.ErrorSetting.purchase } ? .paymentDeclined : nil,
            timeRate: (configuration.timeRate ?? catalogSettings.timeRate).rawValue)
        var loaded: StoreState?
        if let file = configuration.stateFile, FileManager.default.fileExists(atPath: file.path) {
            do {
                loaded = try AppStoreJSON.decoder().decode(StoreState.self, from: Data(contentsOf: file))
            } catch {
                throw SimulatedAppStoreError(.storage, "cannot read the store state \(file.path): \(error)")
            }
        }
        var state =
            loaded
            ?? StoreState(
                nextTransactionNumber: configuration.firstTransactionNumber ?? Self.randomTransactionBase(),
                nextWebOrderLineItemNumber: (configuration.firstTransactionNumber ?? Self.randomTransactionBase()) + 500_000_000,
                settings: settings)
        if let override = configuration.timeRate { state.settings.timeRate = override.rawValue }
        switch time {
        case .manual(let start):
            if state.manualStart == nil { state.manualStart = start }
            let fixed = state.manualStart!
            self.baseNow = { fixed }
        case .system(let now):
            self.baseNow = now
        }
        self.state = state
    }

    /// The store's current time, in whole milliseconds as Apple's dates are.
    public var now: Date {
        EpochMilliseconds.date(EpochMilliseconds.of(baseNow().addingTimeInterval(state.timeOffset)))
    }

    /// The real time of the world outside the simulation (the base clock, without advances):
    /// bearer tokens of the App Store Server API are checked against it, as Apple checks them.
    public var realNow: Date { baseNow() }

    /// The store's current settings.
    public var settings: Settings { state.settings }

    /// Changes the store's settings.
    /// - Throws: ``SimulatedAppStoreError`` when the state cannot be saved.
    public func updateSettings(_ change: (inout Settings) -> Void) throws(SimulatedAppStoreError) {
        change(&state.settings)
        try save()
    }

    /// The products the store sells.
    public var products: [StoreKitConfiguration.Product] { configuration.catalog.products }

    /// A new stream of transactions that change outside a purchase call: renewals, Ask to Buy
    /// approvals, resolved interruptions, refunds and revocations. As `Transaction.updates`.
    public func updates() -> AsyncStream<SimulatedAppStore.SignedTransaction> {
        let (stream, continuation) = AsyncStream<SimulatedAppStore.SignedTransaction>.makeStream()
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
    }

    func publish(_ transaction: SimulatedAppStore.SignedTransaction) {
        for continuation in subscribers.values { continuation.yield(transaction) }
    }

    // MARK: - Persistence

    func save() throws(SimulatedAppStoreError) {
        guard let file = configuration.stateFile else { return }
        do {
            let data = try AppStoreJSON.encoder().encode(state)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        } catch {
            throw SimulatedAppStoreError(.storage, "cannot write the store state \(file.path): \(error)")
        }
    }

    // MARK: - Identifiers and signing

    private static func randomTransactionBase() -> Int64 {
        // Sixteen digits starting with 2, as Apple's; random so stores never repeat each other's identifiers.
        2_000_000_000_000_000 + Int64.random(in: 0..<100_000_000) * 1_000
    }

    func nextTransactionID() -> String {
        defer { state.nextTransactionNumber += 1 }
        return String(state.nextTransactionNumber)
    }

    func nextWebOrderLineItemID() -> String {
        defer { state.nextWebOrderLineItemNumber += 1 }
        return String(state.nextWebOrderLineItemNumber)
    }

    func nextPendingID() -> String {
        defer { state.nextPendingNumber += 1 }
        return "pending-\(state.nextPendingNumber)"
    }

    /// The transaction signed now.
    func signed(_ record: TransactionRecord) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        var payload = record.payload
        payload.signedDate = now
        do {
            return SimulatedAppStore.SignedTransaction(jws: try authority.sign(payload), payload: payload)
        } catch {
            throw SimulatedAppStoreError(.invalidState, "cannot sign transaction: \(error)")
        }
    }

    func signedTransaction(_ id: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        guard let index = state.transactionIndex(id) else {
            throw SimulatedAppStoreError(.notFound, "no transaction \(id)")
        }
        return try signed(state.transactions[index])
    }

    func sign(_ payload: some Encodable) throws(SimulatedAppStoreError) -> String {
        do {
            return try authority.sign(payload)
        } catch {
            throw SimulatedAppStoreError(.invalidState, "cannot sign: \(error)")
        }
    }

    var storefront: String { configuration.catalog.settings.storefront }
    var currency: String { configuration.catalog.settings.currency }

    var storefrontID: String {
        let ids = [
            "USA": "143441", "GBR": "143444", "UKR": "143492", "DEU": "143443", "FRA": "143442",
            "JPN": "143462", "CAN": "143455", "AUS": "143460", "POL": "143478", "CHE": "143459",
        ]
        return ids[storefront] ?? "143441"
    }

    var timeRate: TimeRate { TimeRate(rawValue: state.settings.timeRate) ?? .realTime }
}
