import Foundation
public import TallyCore

extension PurchaseManager {
    /// The customer's purchase of the app itself (``AppPurchase``): which version they first
    /// got and when, read from the store (StoreKit 2's `AppTransaction`, or the app receipt) and
    /// verified by the delivery. On the device (``OnDeviceLedger``) the device verifies it; a
    /// ``ServerDelivery`` does not verify it yet (`invalid_request`).
    /// - Throws: ``TallyError`` `store_unavailable` when the store cannot provide it,
    ///   `verification_failed`, `invalid_request`.
    public func appPurchase() async throws(TallyError) -> AppPurchase {
        try await delivery.appPurchase(try await store.appTransaction())
    }

    /// Balances and entitlements, fresh or cached as `policy` says.
    ///
    /// The cache is kept on the device per ``Configuration/scope``: fresh for
    /// ``Configuration/cacheLifetime`` (24 h). When fetching fails (offline) its balances stand
    /// in for ``Configuration/offlineBalanceWindow`` (3 days) and its entitlements until their
    /// own expiry (or ``Configuration/offlineAccessWindow`` when one is set). On the device
    /// (``OnDeviceLedger``) the local ledger is the source of truth: once the cache's balances
    /// are too old, it is read instead, without the network. Ages and expiries are judged on the
    /// device's trusted time, which advances with its uptime, so moving the device's clock
    /// neither extends access nor ends it.
    /// - Throws: ``TallyError`` when a fetch is needed and fails.
    public func account(_ policy: FetchPolicy = .cachedOrFetched) async throws(TallyError) -> AccountState {
        let asOf = try await cache.effectiveNow(now())
        let known = try await knownState(asOf: asOf)
        switch policy {
        case .fromCacheOnly:
            return known ?? .empty(asOf: asOf)
        case .fetchCurrent:
            return try await refresh()
        case .cachedOrFetched:
            guard let known else { return try await refresh() }
            if known.isStale { Task { _ = try? await self.refresh() } }
            return known
        case .notStaleCachedOrFetched:
            if let known, !known.isStale { return known }
            do throws(TallyError) {
                return try await refresh()
            } catch  where error.isTransient {
                if let known { return known }
                throw error
            }
        }
    }

    /// The best state known without the network: the cache while its balances may stand in;
    /// past that, on the device, the local ledger; otherwise the cache's entitlements alone
    /// (within ``Configuration/offlineAccessWindow``, if one is set), balances left out.
    private func knownState(asOf: Date) async throws(TallyError) -> AccountState? {
        let entry = try await cache.load()
        let age = entry.map { asOf.timeIntervalSince($0.fetchedAt) } ?? .infinity
        let withinAccessWindow = configuration.offlineAccessWindow.map { age <= $0 } ?? true
        let isStale = age > configuration.cacheLifetime
        if let entry, withinAccessWindow, age <= configuration.offlineBalanceWindow {
            return AccountState(snapshot: entry.snapshot, fetchedAt: entry.fetchedAt, source: .cache, isStale: isStale, asOf: asOf)
        }
        if let local = try await delivery.localAccount() {
            return AccountState(snapshot: local, fetchedAt: asOf, source: .fetched, isStale: false, asOf: asOf)
        }
        guard let entry, withinAccessWindow else { return nil }
        // Entitlements carry their own expiry, judged at `asOf`; balances have none, and a
        // number days old is not shown as if it were known.
        var snapshot = entry.snapshot
        snapshot.balances = []
        return AccountState(snapshot: snapshot, fetchedAt: entry.fetchedAt, source: .cache, isStale: isStale, asOf: asOf)
    }

    /// Fetches balances and entitlements now, caches and publishes them.
    @discardableResult
    public func refresh() async throws(TallyError) -> AccountState {
        try await refresh(including: [])
    }

    /// Fetches with `history` (kept purchases from the store's history) beside the store's
    /// current entitlements, so that the device records a subscription that lapsed.
    func refresh(including history: [StoreTransaction]) async throws(TallyError) -> AccountState {
        let current = (try? await store.currentEntitlements()) ?? []
        let lapsed = history.filter { old in !current.contains { $0.id == old.id } }
        let renewals = (try? await store.subscriptionRenewals()) ?? []
        let snapshot = try await delivery.account(storeEntitlements: current + lapsed, renewals: renewals)
        await applyAccount(.snapshot(snapshot)).value
        let state: AccountState
        if let published = accountBroadcast.value {
            state = published
        } else {
            let asOf = try await cache.effectiveNow(now())
            state = AccountState(snapshot: snapshot, fetchedAt: asOf, source: .fetched, isStale: false, asOf: asOf)
        }
        if let entitlement = configuration.onboardingEntitlement,
            let paid = snapshot.entitlements.first(where: { $0.id == entitlement && $0.active })
                ?? snapshot.entitlements.first(where: { $0.id == entitlement })
        {
            // The entitlement, active or lapsed, was paid for (on another device, say, or before a
            // reinstall): a confirmed payment, so onboarding is done.
            try? await cache.completeOnboarding(transactionID: "entitlement:" + paid.productID, at: state.asOf)
        }
        return state
    }

    /// The latest transaction of each kept product (subscription, lifetime unlock) in the
    /// store's history, refunded ones left out. Consumables are never taken from history: a
    /// credit used before a reinstall does not come back.
    func keptPurchasesFromHistory() async -> [StoreTransaction] {
        guard let history = try? await store.transactionHistory() else { return [] }
        var latest: [String: StoreTransaction] = [:]
        for transaction in history where transaction.payload.type != .consumable && !transaction.isRevoked {
            let date = transaction.payload.purchaseDate ?? .distantPast
            if let kept = latest[transaction.originalID], (kept.payload.purchaseDate ?? .distantPast) > date { continue }
            latest[transaction.originalID] = transaction
        }
        return latest.values.sorted { ($0.payload.purchaseDate ?? .distantPast) < ($1.payload.purchaseDate ?? .distantPast) }
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
            accountBroadcast.publish(
                AccountState(
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

    /// Whether a currency can be used now, without the network: from the cached state, or on
    /// the device from the local ledger once the cache is too old; before ``start()`` too.
    public func lockState(_ currency: String) async -> LockState {
        let state = (try? await account(.fromCacheOnly)) ?? .empty(asOf: now())
        return Self.lockStates(state, [currency])[currency] ?? .locked
    }

    static func lockStates(_ state: AccountState, _ currencies: [String]) -> [String: LockState] {
        Dictionary(
            uniqueKeysWithValues: currencies.map { currency in
                let balance = state.balance(currency)
                return (currency, balance.available + balance.held > 0 ? LockState.unlocked : .locked)
            })
    }

    /// Where a subscription-gated app sends its user now: the app when `entitlement` is
    /// active, the paywall when onboarding was completed with a payment before, onboarding otherwise;
    /// ``AccessDestination/checking`` while that is not known yet.
    ///
    /// On a new install the device knows nothing yet: the store's current entitlements and its
    /// history, read as ``start()`` catches up and at ``restore()``, tell a subscriber (the app)
    /// and a lapsed subscriber (the paywall) from someone who never paid (onboarding). So while
    /// ``start()`` catches up, any answer but the app is ``AccessDestination/checking``: a
    /// subscriber whose device does not know it yet is never sent to onboarding or the paywall.
    /// Once caught up, what is known answers, even when the store or the network could not be
    /// reached. On the device it reads the local ledger once the cache is too old.
    /// - Parameters:
    ///   - entitlement: the entitlement that opens the app; ``Configuration/onboardingEntitlement`` by default.
    ///   - policy: how fresh the account state must be; the cache first by default.
    public func destination(for entitlement: String? = nil, policy: FetchPolicy = .cachedOrFetched) async -> AccessDestination {
        guard let entitlement = entitlement ?? configuration.onboardingEntitlement else { return .main }
        // Taken before the state is read: a catch-up that ends meanwhile has applied what it read.
        let storeUnread = startupState == .catchingUp
        var state = try? await account(policy)
        if state == nil { state = try? await account(.fromCacheOnly) }
        if state?.isActive(entitlement) == true { return .main }
        if storeUnread { return .checking }
        guard let state else { return (try? await cache.onboardingCompleted()) == true ? .paywall : .onboarding }
        // An entitlement the account had, even lapsed, is a payment made before (on this device
        // or another, before a reinstall): straight to the paywall.
        if state.snapshot.entitlements.contains(where: { $0.id == entitlement }) { return .paywall }
        return (try? await cache.onboardingCompleted()) == true ? .paywall : .onboarding
    }
}
