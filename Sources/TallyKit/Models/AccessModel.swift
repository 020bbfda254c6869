public import Observation

#if canImport(Combine)
public import Combine
#endif

/// Where a subscription-gated app sends its user, for SwiftUI (Observation from iOS 17,
/// `ObservableObject` from iOS 13) and UIKit (``onChange``): onboarding for a new user, the paywall for a returning user whose
/// subscription lapsed, the app for a subscriber. Onboarding counts as done only after a
/// confirmed payment.
///
/// At launch the device may not know yet: after a reinstall its own records are empty until
/// ``PurchaseManager/start()`` has read the store, and a cached subscription that ended may have
/// renewed since. Until then the destination is ``PurchaseManager/AccessDestination/checking``
/// (never onboarding or the paywall), and the model moves on by itself once the store answered:
///
/// ```swift
/// let access = AccessModel(manager: manager, entitlement: "pro")
/// await manager.start()
/// await access.update()          // at once: a cached subscriber is in the app already
/// switch access.destination {
/// case nil, .checking: LaunchScreen()      // the store is still being read; an answer follows
/// case .onboarding: OnboardingView()
/// case .paywall: PaywallView(model: paywall, links: links)
/// case .main: ContentView()
/// }
/// ```
@MainActor
public final class AccessModel: ObservedModel {
    /// What the model shows; see ``ModelObservation``.
    struct State {
        var destination: PurchaseManager.AccessDestination?
        var account: AccountState?
    }
    #if canImport(Combine)
    @Published var storage = State()
    #else
    var storage = State()
    #endif
    let observation = ModelObservation()

    /// Where to go now; `nil` until the first ``update(policy:)``, and
    /// ``PurchaseManager/AccessDestination/checking`` while the store's answer is awaited at launch.
    public var destination: PurchaseManager.AccessDestination? { state.destination }
    /// The account state it was decided on.
    public var account: AccountState? { state.account }
    /// Called after every change, for UIKit screens that do not observe.
    public var onChange: (@MainActor (AccessModel) -> Void)?

    private let manager: PurchaseManager
    private let entitlement: String
    private var following: Task<Void, Never>?
    private var followingStartup: Task<Void, Never>?
    /// Decisions asked for so far: one that returns after a later one was asked is dropped,
    /// so an answer given while the store was being read never overwrites the store's.
    private var decisions = 0

    /// - Parameters:
    ///   - manager: the purchase manager.
    ///   - entitlement: the entitlement that opens the app.
    public init(manager: PurchaseManager, entitlement: String) {
        self.manager = manager
        self.entitlement = entitlement
    }

    /// Decides where to go, and from then on follows account changes (a purchase, a refresh)
    /// and the launch's progress (``PurchaseManager/AccessDestination/checking`` ends when
    /// ``PurchaseManager/start()`` has read the store, whatever it found).
    /// - Parameter policy: how fresh the state must be; the cache first by default.
    public func update(policy: FetchPolicy = .cachedOrFetched) async {
        await decide(policy: policy, account: nil)
        guard following == nil else { return }
        let updates = manager.accountUpdates()
        following = Task { [weak self] in
            for await state in updates {
                guard let self else { return }
                await self.decide(policy: .fromCacheOnly, account: state)
            }
        }
        let startup = manager.startupUpdates()
        followingStartup = Task { [weak self] in
            for await _ in startup {
                guard let self else { return }
                await self.decide(policy: .fromCacheOnly, account: nil)
            }
        }
    }

    private func decide(policy: FetchPolicy, account: AccountState?) async {
        decisions += 1
        let decision = decisions
        let destination = await manager.destination(for: entitlement, policy: policy)
        var known = account
        if known == nil { known = try? await manager.account(.fromCacheOnly) }
        guard decision == decisions else { return }
        var next = state
        next.destination = destination
        next.account = known
        state = next
        onChange?(self)
    }

    /// Stops following account changes and the launch's progress.
    public func stop() {
        following?.cancel()
        following = nil
        followingStartup?.cancel()
        followingStartup = nil
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension AccessModel: Observable {}

#if canImport(Combine)
extension AccessModel: ObservableObject {}
#endif
