import Foundation
public import TallyCore

extension PurchaseManager {
    /// Balances and entitlements, fresh or cached as `policy` says.
    ///
    /// The cache is kept on the device per ``Configuration/scope``: fresh for
    /// ``Configuration/cacheLifetime`` (24 h), usable offline for
    /// ``Configuration/offlineAccessWindow``. Its age is measured on the device's uptime, so
    /// moving the device's clock neither extends access nor ends it.
    /// - Throws: ``TallyError`` when a fetch is needed and fails.
    public func account(_ policy: FetchPolicy = .cachedOrFetched) async throws(TallyError) -> AccountState {
        let asOf = try await cache.effectiveNow(now())
        let cached = try await cache.load().flatMap { entry -> AccountState? in
            let age = asOf.timeIntervalSince(entry.fetchedAt)
            guard age <= Self.seconds(configuration.offlineAccessWindow) else { return nil }
            return AccountState(snapshot: entry.snapshot, fetchedAt: entry.fetchedAt, source: .cache,
                                isStale: age > Self.seconds(configuration.cacheLifetime), asOf: asOf)
        }
        switch policy {
        case .fromCacheOnly:
            return cached ?? .empty(asOf: asOf)
        case .fetchCurrent:
            return try await refresh()
        case .cachedOrFetched:
            guard let cached else { return try await refresh() }
            if cached.isStale { Task { _ = try? await self.refresh() } }
            return cached
        case .notStaleCachedOrFetched:
            if let cached, !cached.isStale { return cached }
            do throws(TallyError) {
                return try await refresh()
            } catch where error.isTransient {
                if let cached { return cached }
                throw error
            }
        }
    }

    /// Fetches balances and entitlements now, caches and publishes them.
    @discardableResult
    public func refresh() async throws(TallyError) -> AccountState {
        let entitlements = (try? await store.currentEntitlements()) ?? []
        let snapshot = try await delivery.account(storeEntitlements: entitlements)
        await applyAccount(.snapshot(snapshot)).value
        let state: AccountState
        if let published = accountBroadcast.value {
            state = published
        } else {
            let asOf = try await cache.effectiveNow(now())
            state = AccountState(snapshot: snapshot, fetchedAt: asOf, source: .fetched, isStale: false, asOf: asOf)
        }
        let fetchedAt = state.asOf
        if let entitlement = configuration.onboardingEntitlement, state.isActive(entitlement),
           let paid = snapshot.entitlements.first(where: { $0.id == entitlement && $0.active }) {
            // An active subscription found by the server (bought on another device, say) is a confirmed payment too.
            try? await cache.completeOnboarding(transactionID: "entitlement:" + paid.productId, at: fetchedAt)
        }
        return state
    }

    /// A change of the account: a whole snapshot, or one balance.
    enum AccountChange: Sendable {
        case snapshot(AccountSnapshot)
        case balance(Balance)
    }

    /// Queues a change to be cached and published after every change queued before it.
    ///
    /// Called right after the destination answered, with no suspension in between, so changes
    /// apply in the order the answers arrived: a delivery's older snapshot never overwrites a
    /// spend that came after it because the delivery had more steps left.
    @discardableResult
    func applyAccount(_ change: AccountChange) -> Task<Void, Never> {
        let previous = accountTail
        let task = Task {
            await previous?.value
            await self.applyNow(change)
        }
        accountTail = task
        return task
    }

    private func applyNow(_ change: AccountChange) async {
        // Fetch times are on the same clock as the times they are judged at.
        guard let asOf = try? await cache.effectiveNow(now()) else { return }
        let fetchedAt = asOf
        switch change {
        case .snapshot(let snapshot):
            try? await cache.store(snapshot, fetchedAt: fetchedAt)
            accountBroadcast.publish(AccountState(snapshot: snapshot, fetchedAt: fetchedAt, source: .fetched, isStale: false, asOf: asOf))
        case .balance(let balance):
            var current = accountBroadcast.value
            if current == nil { current = try? await account(.fromCacheOnly) }
            guard let latest = current, latest.source != .none else { return }
            var snapshot = latest.snapshot
            snapshot.balances.removeAll { $0.currency == balance.currency }
            snapshot.balances.append(balance)
            snapshot.balances.sort { $0.currency < $1.currency }
            // Only a balance is new: the entitlements are as old as they were, and so is the state.
            let stateTime = latest.fetchedAt ?? fetchedAt
            try? await cache.store(snapshot, fetchedAt: stateTime)
            accountBroadcast.publish(AccountState(
                snapshot: snapshot, fetchedAt: stateTime, source: latest.source, isStale: latest.isStale, asOf: asOf))
        }
    }

    /// Every account state from now on, starting with the latest known one.
    public nonisolated func accountUpdates() -> AsyncStream<AccountState> {
        accountBroadcast.stream()
    }

    /// The balances, from now on, starting with the latest known ones; a value only when they change.
    public nonisolated func balanceUpdates() -> AsyncStream<[Balance]> {
        changes(of: \.snapshot.balances)
    }

    /// The entitlements in force (judged at each state's time), from now on, starting with the
    /// latest known ones; a value only when the set changes.
    public nonisolated func entitlementUpdates() -> AsyncStream<[Entitlement]> {
        let active: @Sendable (AccountState) -> [Entitlement] = { state in
            state.snapshot.entitlements.filter { state.isActive($0.id) && $0.active }.sorted { $0.id < $1.id }
        }
        return changes(of: active)
    }

    /// A value derived from each account state, published when it differs from the last one.
    private nonisolated func changes<Value: Equatable & Sendable>(of value: @escaping @Sendable (AccountState) -> Value) -> AsyncStream<Value> {
        let source = accountBroadcast.stream()
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            var last: Value?
            for await state in source {
                let next = value(state)
                if next != last { continuation.yield(next) }
                last = next
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Whether each currency can be used, from now on, starting with the latest known state.
    /// - Parameter currencies: the currencies to follow (`report.career`, …).
    public nonisolated func lockStates(for currencies: [String]) -> AsyncStream<[String: LockState]> {
        changes { Self.lockStates($0, currencies) }
    }

    /// Whether a currency can be used now, from the cached state.
    public func lockState(_ currency: String) async -> LockState {
        let state = (try? await account(.fromCacheOnly)) ?? .empty(asOf: now())
        return Self.lockStates(state, [currency])[currency] ?? .locked
    }

    static func lockStates(_ state: AccountState, _ currencies: [String]) -> [String: LockState] {
        Dictionary(uniqueKeysWithValues: currencies.map { currency in
            let balance = state.balance(currency)
            return (currency, balance.available + balance.held > 0 ? LockState.unlocked : .locked)
        })
    }

    /// Where a subscription-gated app sends its user now: the app when `entitlement` is
    /// active, the paywall when onboarding was completed with a payment before, onboarding otherwise.
    /// - Parameters:
    ///   - entitlement: the entitlement that opens the app; ``Configuration/onboardingEntitlement`` by default.
    ///   - policy: how fresh the account state must be; the cache first by default.
    public func destination(for entitlement: String? = nil, policy: FetchPolicy = .cachedOrFetched) async -> AccessDestination {
        guard let entitlement = entitlement ?? configuration.onboardingEntitlement else { return .main }
        var state = try? await account(policy)
        if state == nil { state = try? await account(.fromCacheOnly) }
        guard let state else { return (try? await cache.onboardingCompleted()) == true ? .paywall : .onboarding }
        if state.isActive(entitlement) { return .main }
        // An entitlement the account had, even lapsed, is a payment made before (on this device
        // or another, before a reinstall): straight to the paywall.
        if state.snapshot.entitlements.contains(where: { $0.id == entitlement }) { return .paywall }
        return (try? await cache.onboardingCompleted()) == true ? .paywall : .onboarding
    }
}
