public import Observation

#if canImport(Combine)
public import Combine
#endif

/// Where a subscription-gated app sends its user, for SwiftUI (Observation from iOS 17,
/// `ObservableObject` from iOS 13) and UIKit (``onChange``): onboarding for a new user, the paywall for a returning user whose
/// subscription lapsed, the app for a subscriber. Onboarding counts as done only after a
/// confirmed payment.
///
/// ```swift
/// let access = AccessModel(manager: manager, entitlement: "pro")
/// await access.update()          // at launch, from the cache at once
/// switch access.destination { case .onboarding: … case .paywall: … case .main: … }
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

    /// Where to go now; `nil` until the first ``update(policy:)``.
    public var destination: PurchaseManager.AccessDestination? { state.destination }
    /// The account state it was decided on.
    public var account: AccountState? { state.account }
    /// Called after every change, for UIKit screens that do not observe.
    public var onChange: (@MainActor (AccessModel) -> Void)?

    private let manager: PurchaseManager
    private let entitlement: String
    private var following: Task<Void, Never>?

    /// - Parameters:
    ///   - manager: the purchase manager.
    ///   - entitlement: the entitlement that opens the app.
    public init(manager: PurchaseManager, entitlement: String) {
        self.manager = manager
        self.entitlement = entitlement
    }

    /// Decides where to go, and from then on follows account changes (a purchase, a refresh).
    /// - Parameter policy: how fresh the state must be; the cache first by default.
    public func update(policy: FetchPolicy = .cachedOrFetched) async {
        state.destination = await manager.destination(for: entitlement, policy: policy)
        state.account = try? await manager.account(.fromCacheOnly)
        onChange?(self)
        guard following == nil else { return }
        let updates = manager.accountUpdates()
        following = Task { [weak self] in
            for await state in updates {
                guard let self else { return }
                self.state.account = state
                self.state.destination = await self.manager.destination(for: self.entitlement, policy: .fromCacheOnly)
                self.onChange?(self)
            }
        }
    }

    /// Stops following account changes.
    public func stop() {
        following?.cancel()
        following = nil
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension AccessModel: Observable {}

#if canImport(Combine)
extension AccessModel: ObservableObject {}
#endif
