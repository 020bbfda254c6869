public import Foundation
public import TallyCore

/// Ties a ``Store`` to a ``Delivery`` so that no paid purchase is ever lost or credited twice.
///
/// Every transaction the store hands over is written to the device's journal before its
/// delivery starts, and finished only after the delivery says its credit is durable. What
/// fails for want of network is retried with exponential backoff and full jitter, and again
/// at every ``start()``; what crashed half-way is taken up where it stopped.
///
/// ```swift
/// let manager = try await PurchaseManager.onDevice(catalog: catalog, appAppleID: 6_450_000_000)   // or .server(url:credentials:productIDs:)
/// await manager.start()                                  // at launch; the network work goes on in the background
/// let outcome = try await manager.purchase("com.tally.zorya.report.career")
/// let report = try await manager.consume("report.career", for: profile.id) { try await generate() }
/// ```
///
/// Re-entrancy: the actor suspends while the store and the delivery work. Two calls that
/// deliver the same transaction (the purchase call and the updates stream, say) share one
/// delivery; a second purchase of a product whose purchase is under way is refused with
/// ``TallyError/Code/purchaseInProgress``; everything else may interleave.
public actor PurchaseManager {
    /// What the manager sells and how it behaves.
    public struct Configuration: Sendable {
        /// The App Store product identifiers the app sells.
        public var productIDs: [String]
        /// The language of paywall texts and error presentations.
        public var language: TallyLanguage
        /// How failed deliveries and spends are retried.
        public var retry: RetryPolicy
        /// Delivery attempts inside a purchase call before it returns and leaves the rest to background retries.
        public var attemptsDuringPurchase: Int
        /// Refuses to buy a product while an unused credit it grants exists (``TallyError/Code/unusedCreditExists``).
        /// Off by default; an app that sells one report per purchase turns it on.
        public var blocksPurchaseWhileCreditUnused: Bool
        /// How long a fetched account state is fresh, in seconds (24 hours by default).
        public var cacheLifetime: TimeInterval
        /// How long a cached account state may stand in at all when fetching fails (offline), in seconds.
        /// `nil` (the default): cached entitlements stand in until their own known expiry however
        /// long the device stays offline, as a subscription app wants (a yearly subscriber is not
        /// sent to the paywall after a week away); a lifetime unlock stays.
        public var offlineAccessWindow: TimeInterval?
        /// How long cached balances may stand in when fetching fails, in seconds (3 days by default);
        /// after that they read zero until a fetch. On the device the local ledger answers instead.
        public var offlineBalanceWindow: TimeInterval
        /// How often the account state is refreshed while started, in seconds (5 minutes by default); `nil` for never.
        public var refreshInterval: TimeInterval?
        /// How long a prepared purchase may stay unpaid before its order is closed at a start, in seconds (an hour by default).
        public var abandonUnpaidAfter: TimeInterval
        /// How long ``PurchaseManager/consume(_:amount:for:work:)`` holds a credit while the work runs.
        public var consumeHoldSeconds: Int64
        /// Whose state this is (the server's user id); caches and onboarding are kept per scope.
        public var scope: String
        /// The entitlement that completes onboarding when a confirmed payment unlocks it.
        public var onboardingEntitlement: String?
        /// Whether a purchase the customer started on the App Store (a promoted product, a
        /// win-back offer) is completed at once through ``PurchaseManager/purchase(_:quantity:promotionalOffer:winBackOfferID:confirmIn:)``;
        /// `true` by default. When `false` the app takes them from
        /// ``PurchaseManager/purchaseIntents()`` and buys when it is ready (after onboarding, say).
        public var completesPurchaseIntents: Bool
        /// Called at each step of a delivery with the transaction id; for logs and failure drills.
        public var checkpoint: (@Sendable (PurchaseStep, String) async -> Void)?
        /// Where the manager's decisions are logged (refused verifications with their code,
        /// retries, finishes, restores, refunds), and the alarm a refused verification raises
        /// (an `assertionFailure` in Debug builds on Apple platforms). ``TallyLog/sink`` by default.
        public var log: TallyLog
        /// How long a transaction refused for good (``PurchaseJournal/State/rejected``) waits
        /// before ``PurchaseManager/start()`` delivers it again, in seconds (a day by default).
        /// StoreKit hands it over at every launch; delivering it each time would refuse it each
        /// time. A restore and ``PurchaseManager/retryUndelivered()`` try it at once.
        public var rejectedRetryInterval: TimeInterval

        /// - Parameter productIDs: the products the app sells.
        public init(productIDs: [String]) {
            self.productIDs = productIDs
            self.language = .preferred
            self.retry = .standard
            self.attemptsDuringPurchase = 3
            self.blocksPurchaseWhileCreditUnused = false
            self.cacheLifetime = 24 * 3600
            self.offlineAccessWindow = nil
            self.offlineBalanceWindow = 3 * 24 * 3600
            self.refreshInterval = 300
            self.abandonUnpaidAfter = 3600
            self.consumeHoldSeconds = 3600
            self.scope = "device"
            self.onboardingEntitlement = nil
            self.completesPurchaseIntents = true
            self.checkpoint = nil
            self.log = TallyLog()
            self.rejectedRetryInterval = 86_400
        }
    }

    /// What became of a purchase call.
    public enum PurchaseOutcome: Sendable, Hashable {
        /// Paid and credited.
        case purchased(DeliveryReceipt)
        /// The customer dismissed the payment sheet; nothing changed.
        case cancelled
        /// Waiting for Ask to Buy or another approval; the credit arrives when it is approved,
        /// through ``PurchaseManager/accountUpdates()``.
        case pending
        /// Paid, but the credit could not be delivered yet (the server did not answer, say). It
        /// is journaled and retried in the background and at every ``PurchaseManager/start()``;
        /// it arrives through ``PurchaseManager/accountUpdates()``. Do not offer to buy again.
        case deliveryPending(transactionID: String)
    }

    /// What a restore found.
    public struct RestoreResult: Sendable, Hashable {
        /// The transactions delivered (or found delivered before).
        public let receipts: [DeliveryReceipt]
        /// The account state afterwards.
        public let account: AccountState
    }

    /// Whether a credit of a kind can be used.
    public enum LockState: String, Sendable, Hashable {
        /// Nothing to use: show the paywall.
        case locked
        /// At least one credit (or one held for work under way).
        case unlocked
    }

    /// How far the work of ``PurchaseManager/start()`` is.
    public enum StartupState: String, Sendable, Hashable {
        /// ``PurchaseManager/start()`` was not called, or ``PurchaseManager/stop()`` was since.
        case stopped
        /// Local state is ready (the last known account is published, the journal read); the
        /// network work goes on in the background: delivering what earlier runs left, unanswered
        /// spends and holds, closing unpaid orders, reading the store's history on a new
        /// install, refreshing the account. What it changes arrives through
        /// ``PurchaseManager/accountUpdates()``.
        case catchingUp
        /// All of it was tried once. What failed for want of network is retried in the
        /// background with backoff (``PurchaseManager/scheduledRetries``).
        case caughtUp
    }

    /// Where an app with a subscription gate sends its user.
    public enum AccessDestination: String, Sendable, Hashable {
        /// Not known yet: ``PurchaseManager/start()`` is still reading the store, and what the
        /// device knows does not open the app (after a reinstall it knows nothing; a cached
        /// subscription may have renewed). Show the launch screen, neither onboarding nor the
        /// paywall; the answer is known once ``StartupState/caughtUp``.
        case checking
        /// Never paid: the onboarding screens, ending with the paywall.
        case onboarding
        /// Paid before, not subscribed now: straight to the paywall.
        case paywall
        /// Subscribed: the app itself.
        case main
    }

    /// What the manager sells and how it behaves, as given at creation.
    public nonisolated let configuration: Configuration
    nonisolated let store: any Store
    nonisolated let delivery: any Delivery
    /// The device's record of every transaction, prepared purchase and unanswered spend.
    public nonisolated let journal: PurchaseJournal
    let cache: AccountCache
    let connectivity: any Connectivity
    let analytics: any AnalyticsSink
    let now: @Sendable () -> Date
    /// Waits the given seconds: backoff and refresh sleep on it, so tests drive them.
    let sleep: @Sendable (TimeInterval) async throws -> Void
    let accountBroadcast = Broadcast<AccountState>()
    let startupBroadcast = Broadcast<StartupState>()

    var started = false
    /// Consecutive failures of the unanswered spends' retries, for their backoff.
    var pendingSpendFailures = 0
    /// Holds taken by ``consume(_:amount:for:work:)`` whose work is under way in this process.
    var activeHolds: Set<String> = []
    /// The last queued change of the account state (see `applyAccount`).
    var accountTail: Task<Void, Never>?
    var listener: Task<Void, Never>?
    var intentListener: Task<Void, Never>?
    var intentSubscribers: [UUID: AsyncStream<StorePurchaseIntent>.Continuation] = [:]
    var refresher: Task<Void, Never>?
    /// The network work of the latest ``start()``, and which start it belongs to.
    var catchUp: Task<Void, Never>?
    var startGeneration = 0
    var deliveries: [String: Task<Result<DeliveryReceipt, TallyError>, Never>] = [:]
    var retries: [String: Task<Void, Never>] = [:]
    var purchasesInFlight: Set<String> = []
    var productDetails: [String: ProductDetails] = [:]
    var grants: [TallyLanguage: [ProductGrant]] = [:]
    var random = SystemRandomNumberGenerator()

    /// Creates a manager; call ``start()`` next.
    /// - Parameters:
    ///   - store: where purchases are made.
    ///   - delivery: where they are credited.
    ///   - database: the device's database (journal, cache, onboarding).
    ///   - configuration: products and behaviour.
    ///   - connectivity: whether the device is online, checked before the payment sheet; when not
    ///     given, the system's network path monitor, except on watchOS (where it never reports a
    ///     path) and platforms without one: there the device is taken as online and StoreKit
    ///     reports a network failure itself.
    ///   - analytics: where purchase events go.
    ///   - sleep: waits the given seconds, for backoff and refresh; `Task.sleep` by default.
    ///     Throws when the waiting task is cancelled.
    ///   - now: the current time.
    ///   - uptime: seconds since the device started; cached states are judged on it, so that
    ///     moving the device's clock neither extends nor ends access.
    /// - Throws: ``TallyError``; nothing fails here today, since `database` arrives opened and
    ///   migrated (``LocalDatabase/init(path:)``), but the signature leaves room for preparing
    ///   the manager's state to fail without breaking callers.
    public init(
        store: any Store, delivery: any Delivery, database: LocalDatabase, configuration: Configuration,
        connectivity: (any Connectivity)? = nil, analytics: any AnalyticsSink = NoAnalytics(),
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = PurchaseManager.taskSleep,
        now: @escaping @Sendable () -> Date = { Date() },
        uptime: @escaping @Sendable () -> TimeInterval = PurchaseManager.timeSinceBoot
    ) async throws(TallyError) {
        self.store = store
        self.delivery = delivery
        self.configuration = configuration
        self.journal = PurchaseJournal(database: database)
        self.cache = AccountCache(database: database, scope: configuration.scope, uptime: uptime)
        self.connectivity = connectivity ?? Self.systemConnectivity()
        self.analytics = analytics
        self.now = now
        self.sleep = sleep
        startupBroadcast.publish(.stopped)
    }

    /// Creates a manager whose backoff and refresh sleep on `clock`: a test passes a manual
    /// clock and moves time itself. Call ``start()`` next.
    /// - Parameters:
    ///   - store: where purchases are made.
    ///   - delivery: where they are credited.
    ///   - database: the device's database (journal, cache, onboarding).
    ///   - configuration: products and behaviour.
    ///   - connectivity: whether the device is online, checked before the payment sheet; when not
    ///     given, the system's network path monitor, except on watchOS (where it never reports a
    ///     path) and platforms without one: there the device is taken as online and StoreKit
    ///     reports a network failure itself.
    ///   - analytics: where purchase events go.
    ///   - clock: the clock of backoff and refresh sleeps.
    ///   - now: the current time.
    ///   - uptime: seconds since the device started.
    /// - Throws: ``TallyError``, as the initializer it calls.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public init<C: Clock>(
        store: any Store, delivery: any Delivery, database: LocalDatabase, configuration: Configuration,
        connectivity: (any Connectivity)? = nil, analytics: any AnalyticsSink = NoAnalytics(),
        clock: C, now: @escaping @Sendable () -> Date = { Date() },
        uptime: @escaping @Sendable () -> TimeInterval = PurchaseManager.timeSinceBoot
    ) async throws(TallyError) where C.Duration == Duration {
        try await self.init(
            store: store, delivery: delivery, database: database, configuration: configuration, connectivity: connectivity,
            analytics: analytics, sleep: { seconds in try await clock.sleep(for: .seconds(RetryPolicy.clamped(seconds))) },
            now: now, uptime: uptime)
    }

    /// Waits `seconds` with `Task.sleep` (which takes nanoseconds on every platform the package
    /// supports); the default sleep of ``init(store:delivery:database:configuration:connectivity:analytics:sleep:now:uptime:)``.
    /// - Parameter seconds: how long; negative and not-a-number waits are none, the longest is a century.
    /// - Throws: `CancellationError` when the task is cancelled.
    public static func taskSleep(_ seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(RetryPolicy.clamped(seconds) * 1e9))
    }

    /// Seconds since the device started, sleep included (`systemUptime` stops while it sleeps,
    /// which would stretch cached access on a phone that sleeps most of the day).
    public static func timeSinceBoot() -> TimeInterval {
        var time = timespec()
        #if canImport(Darwin)
        // Darwin's CLOCK_MONOTONIC keeps counting while the system sleeps.
        guard clock_gettime(CLOCK_MONOTONIC, &time) == 0 else { return ProcessInfo.processInfo.systemUptime }
        #else
        guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else { return ProcessInfo.processInfo.systemUptime }
        #endif
        return TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9
    }

    private static func systemConnectivity() -> any Connectivity {
        DefaultConnectivity.make(on: .current) {
            #if canImport(Network) && !os(watchOS)
            NetworkPathConnectivity()
            #else
            ManualConnectivity(online: true)
            #endif
        }
    }

    // MARK: - Lifecycle

    /// Starts listening for transaction updates and takes up everything left unfinished:
    /// journaled transactions, the store's unfinished transactions, unanswered spends, and
    /// orders whose payment never happened. Call it at launch; calling it again does nothing.
    ///
    /// Returns as soon as local state is ready: the last known account is published (so
    /// ``lockState(_:)``, ``destination(for:policy:)`` and the streams answer at once) and the
    /// journal is read. The network work goes on in the background, so a slow or unreachable
    /// server never holds up the launch; follow it with ``startupUpdates()`` (a spinner while
    /// ``StartupState/catchingUp``), or wait for it with ``waitUntilCaughtUp()``. Its results
    /// arrive through ``accountUpdates()``.
    ///
    /// ```swift
    /// await manager.start()                                  // at launch: returns at once
    /// for await state in manager.startupUpdates() where state == .caughtUp { break }
    /// ```
    public func start() async {
        guard !started else { return }
        started = true
        startGeneration += 1
        let generation = startGeneration
        startupBroadcast.publish(.catchingUp)
        let updates = await store.transactionUpdates()
        listener = Task { [weak self] in
            for await transaction in updates {
                guard let self else { return }
                await self.handleUpdate(transaction)
            }
        }
        let intents = await store.purchaseIntents()
        intentListener = Task { [weak self] in
            for await intent in intents {
                guard let self else { return }
                await self.handle(intent)
            }
        }
        // Streams start from the last known state at once, even before (or without) a fetch.
        if accountBroadcast.value == nil, let known = await logFailure(.readCache, { () async throws(TallyError) in try await account(.fromCacheOnly) }),
            known.source != .none
        {
            accountBroadcast.publish(known)
        }
        let journaled = await logFailure(.readJournal, { () async throws(TallyError) in try await journal.unfinished() }) ?? []
        catchUp = Task { [weak self] in
            await self?.recover(journaled)
            await self?.caughtUp(generation)
        }
        if let interval = configuration.refreshInterval {
            refresher = Task { [weak self, sleep] in
                while !Task.isCancelled {
                    do { try await sleep(interval) } catch { return }
                    // A manager that is gone ends its loop.
                    guard let self else { return }
                    await self.refreshLoggingFailure()
                }
            }
        }
    }

    private func caughtUp(_ generation: Int) {
        guard started, generation == startGeneration else { return }
        startupBroadcast.publish(.caughtUp)
    }

    /// Waits until the network work of the latest ``start()`` was tried once (see
    /// ``StartupState/caughtUp``); returns at once when there is none. For command-line tools
    /// and tests, or an app screen that must not show before it.
    public func waitUntilCaughtUp() async {
        await catchUp?.value
    }

    /// How far the work of ``start()`` is now.
    public var startupState: StartupState { startupBroadcast.value ?? .stopped }

    /// How far the work of ``start()`` is, from now on, starting with the current state.
    public nonisolated func startupUpdates() -> AsyncStream<StartupState> {
        startupBroadcast.stream()
    }

    /// Stops listening and retrying. Deliveries under way finish; nothing is lost, the next
    /// ``start()`` takes up what is left.
    public func stop() {
        started = false
        listener?.cancel()
        listener = nil
        intentListener?.cancel()
        intentListener = nil
        refresher?.cancel()
        refresher = nil
        for task in retries.values { task.cancel() }
        retries.removeAll()
        startupBroadcast.publish(.stopped)
    }

    /// Whether ``start()`` was called (and ``stop()`` not since).
    public var isStarted: Bool { started }

    /// The number of deliveries waiting for a retry (for diagnostics and tests).
    public var scheduledRetries: Int { retries.count }

    func refreshLoggingFailure() async {
        _ = await logFailure(.refresh) { () async throws(TallyError) in try await refresh() }
    }

    /// Runs `body`; a failure is logged as `operation` and dropped (the work is tried again later).
    func logFailure<T>(_ operation: LogMessage.Operation, _ body: () async throws(TallyError) -> T) async -> T? {
        do throws(TallyError) {
            return try await body()
        } catch {
            configuration.log.log(.operationFailed(operation, code: error.code.rawValue, reason: error.reason))
            return nil
        }
    }

    func checkpoint(_ step: PurchaseStep, _ transactionID: String) async {
        await configuration.checkpoint?(step, transactionID)
    }

    func record(
        _ kind: PurchaseEvent.Kind, productID: String, transactionID: String? = nil, error: TallyError? = nil, granted: [Amount] = []
    ) async {
        let details = productDetails[productID]
        await analytics.record(
            PurchaseEvent(
                kind: kind, productID: productID, price: details?.price, currency: details?.currencyCode, transactionID: transactionID,
                errorCode: error?.code.rawValue, date: now(), granted: granted))
    }
}

/// The steps of a delivery, in order, as ``PurchaseManager/Configuration/checkpoint`` sees them.
public enum PurchaseStep: String, Sendable, Hashable, CaseIterable {
    /// The store returned a paid transaction; nothing is recorded yet.
    case paid
    /// The transaction is in the journal.
    case journaled
    /// The delivery credited it; the journal does not know yet.
    case delivered
    /// The journal says delivered; the store has not been told to finish it.
    case recorded
    /// The store finished it; the journal does not know yet.
    case finished
}
