import Foundation
import TallyCore
import TallyKitTesting
import TallyServer
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// A subscription app with an onboarding paywall, its entitlement kept by the
/// server and cached on the device for 24 hours.
@Suite(.timeLimit(.minutes(2))) struct ServerSubscriptionTests {
    static let products = ["com.tally.pro.monthly", "com.tally.pro.yearly"]

    static func launch(
        _ device: Device, _ server: LiveServer, credentials: ServerDelivery.Credentials? = nil, transport: FlakyTransport = FlakyTransport(),
        offlineWindow: TimeInterval? = nil
    ) async throws -> (PurchaseManager, ServerDelivery.Credentials) {
        let registered: ServerDelivery.Credentials
        if let credentials {
            registered = credentials
        } else {
            registered = try await ServerDelivery.register(baseURL: server.baseURL, transport: transport)
        }
        let delivery = ServerDelivery(baseURL: server.baseURL, credentials: registered, transport: transport)
        let manager = try await device.launch(delivery: delivery, database: try await device.database(), productIDs: products) {
            $0.scope = registered.userID
            $0.onboardingEntitlement = "pro"
            $0.attemptsDuringPurchase = 1
            if let offlineWindow { $0.offlineAccessWindow = offlineWindow }
        }
        return (manager, registered)
    }

    @Test func anActiveSubscriptionIsFoundAtLaunchAndCached() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (first, credentials) = try await Self.launch(device, server)
            _ = try await first.buy("com.tally.pro.monthly")
            await first.stop()

            // A fresh install on this device signs in as the same user.
            device.reinstall()
            let (manager, _) = try await Self.launch(device, server, credentials: credentials)
            #expect(await manager.destination() == .main)
            let cached = try await manager.account(.fromCacheOnly)
            #expect(cached.source == .cache)
            #expect(cached.isActive("pro"))
        }
    }

    @Test func withinADayTheCacheIsUsedAtOnceEvenOffline() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, credentials) = try await Self.launch(device, server, transport: transport)
            _ = try await manager.buy("com.tally.pro.monthly")
            await manager.stop()

            device.time.advance(by: 23 * 3600)
            transport.failAlways(.offline)
            let (again, _) = try await Self.launch(device, server, credentials: credentials, transport: transport)
            let state = try await again.account(.cachedOrFetched)
            #expect(state.source == .cache)
            #expect(!state.isStale)
            #expect(state.isActive("pro"))
            #expect(await again.destination() == .main)

            // After 24 hours the cache is stale: a fresh state is fetched once the network is back.
            device.time.advance(by: 2 * 3600)
            transport.heal()
            let fresh = try await again.account(.notStaleCachedOrFetched)
            #expect(fresh.source == .fetched)
            #expect(fresh.isActive("pro"))
        }
    }

    @Test func onboardingCompletesOnlyAfterAConfirmedPayment() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.launch(device, server)
            #expect(await manager.destination() == .onboarding)

            await device.store.nextPurchase(.userCancelled)
            #expect(try await manager.purchase("com.tally.pro.monthly") == .cancelled)
            #expect(await manager.destination() == .onboarding)

            await device.store.nextPurchase(.failure(.paymentDeclined))
            _ = try? await manager.purchase("com.tally.pro.monthly")
            #expect(await manager.destination() == .onboarding)

            let access = await AccessModel(manager: manager, entitlement: "pro")
            await access.update()
            #expect(await access.destination == .onboarding)
            _ = try await manager.buy("com.tally.pro.monthly")
            #expect(await manager.destination(policy: .fromCacheOnly) == .main)
            await eventually("the main screen") { await access.destination == .main }
            await access.stop()
        }
    }

    @Test func aPendingPurchaseDoesNotCompleteOnboarding() async throws {
        let device = try await Device { $0.askToBuyEnabled = true }
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.launch(device, server)
            #expect(try await manager.purchase("com.tally.pro.monthly") == .pending)
            #expect(await manager.destination() == .onboarding)
        }
    }

    @Test func byDefaultOfflineAccessLastsUntilTheSubscriptionsKnownExpiry() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.launch(device, server, transport: transport)
            let receipt = try await manager.buy("com.tally.pro.yearly")
            let expiry = try #require(receipt.entitlements.first { $0.id == "pro" }?.expiresAt)
            transport.failAlways(.offline)

            // Two days away: everything cached stands in, the allowance's balance included.
            device.time.advance(by: 2 * 86_400)
            let recent = try await manager.account(.notStaleCachedOrFetched)
            #expect(recent.source == .cache && recent.isActive("pro"))
            #expect(recent.balance("seconds").allowance != nil)

            // Three weeks away: still subscribed, from the last known status; balances are too old to show.
            device.time.advance(by: 19 * 86_400)
            let away = try await manager.account(.notStaleCachedOrFetched)
            #expect(away.source == .cache)
            #expect(away.isActive("pro"))
            #expect(away.snapshot.balances.isEmpty)
            #expect(away.balance("seconds").spendable == 0)
            #expect(await manager.destination(policy: .notStaleCachedOrFetched) == .main)

            // Past the subscription's known expiry, still offline: the paywall.
            device.time.set(expiry.addingTimeInterval(60))
            #expect(!(try await manager.account(.fromCacheOnly).isActive("pro")))
            #expect(await manager.destination(policy: .notStaleCachedOrFetched) == .paywall)
        }
    }

    @Test func offlineAccessFromTheLastKnownStateWithinAWindowTheAppSets() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.launch(device, server, transport: transport, offlineWindow: 3 * 86_400)
            _ = try await manager.buy("com.tally.pro.yearly")
            transport.failAlways(.offline)

            device.time.advance(by: 2 * 86_400)
            let stale = try await manager.account(.notStaleCachedOrFetched)
            #expect(stale.source == .cache)
            #expect(stale.isStale)
            #expect(stale.isActive("pro"))
            #expect(await manager.destination(policy: .notStaleCachedOrFetched) == .main)

            // Past the offline window (three days here) the cached state no longer counts.
            device.time.advance(by: 2 * 86_400)
            let expired = try await manager.account(.fromCacheOnly)
            #expect(expired.source == .none)
            #expect(!expired.isActive("pro"))
            #expect(await manager.destination(policy: .fromCacheOnly) == .paywall)
        }
    }

    @Test func movingTheDeviceClockBackwardsDoesNotExtendAccess() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.launch(device, server, transport: transport, offlineWindow: 3 * 86_400)
            _ = try await manager.buy("com.tally.pro.yearly")
            transport.failAlways(.offline)
            // Offline, the clock set ten days back, then four real days pass: the 3-day window is over.
            device.clockOffset = -10 * 86_400
            #expect(try await manager.account(.fromCacheOnly).isActive("pro"))
            device.time.advance(by: 4 * 86_400)
            let state = try await manager.account(.fromCacheOnly)
            #expect(!state.isActive("pro"))
            #expect(state.asOf >= Kit.start.addingTimeInterval(4 * 86_400))
        }
    }

    @Test func movingTheDeviceClockForwardLocksNobodyOut() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.launch(device, server, transport: transport)
            _ = try await manager.buy("com.tally.pro.monthly")
            transport.failAlways(.offline)
            // A month ahead, then back: neither the cache nor the subscription end on that account.
            device.clockOffset = 40 * 86_400
            #expect(try await manager.account(.fromCacheOnly).isActive("pro"))
            device.clockOffset = 0
            device.time.advance(by: 3600)
            let state = try await manager.account(.fromCacheOnly)
            #expect(state.isActive("pro") && state.source == .cache, "\(state)")
        }
    }

    @Test func afterARestartTheDeviceClockCountsButNeverGoesBack() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.launch(device, server, transport: transport)
            _ = try await manager.buy("com.tally.pro.yearly")
            transport.failAlways(.offline)
            device.time.advance(by: 2 * 86_400)
            _ = try await manager.account(.fromCacheOnly)
            // The phone restarts (its uptime starts again) with its clock set back: time as last seen stands.
            device.reboot()
            device.clockOffset = Kit.start.addingTimeInterval(-3 * 86_400).timeIntervalSince(device.time.now)
            let state = try await manager.account(.fromCacheOnly)
            #expect(state.asOf >= Kit.start.addingTimeInterval(2 * 86_400), "\(state.asOf)")
            #expect(state.isActive("pro"))
        }
    }

    @Test func anEntitlementThatExpiredWhileOfflineIsNotActive() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.launch(device, server, transport: transport, offlineWindow: 60 * 86_400)
            _ = try await manager.buy("com.tally.pro.monthly")
            try await device.appStore.setAutoRenew(
                originalTransactionID: try #require(try await device.appStore.currentEntitlements().first?.payload.originalTransactionID), enabled: false)
            transport.failAlways(.offline)
            // Within the offline window, but past the subscription's own expiry.
            device.time.set(try #require(try await manager.account(.fromCacheOnly).snapshot.entitlements.first?.expiresAt).addingTimeInterval(60))
            let state = try await manager.account(.cachedOrFetched)
            #expect(state.source == .cache)
            #expect(!state.isActive("pro"))
        }
    }

    @Test func aNewUserGoesThroughOnboarding() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.launch(device, server)
            let access = await AccessModel(manager: manager, entitlement: "pro")
            await access.update()
            #expect(await access.destination == .onboarding)
            await access.stop()
        }
    }

    @Test func aReturningUserWithALapsedSubscriptionGoesStraightToThePaywall() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.launch(device, server)
            let receipt = try await manager.buy("com.tally.pro.monthly")
            let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
            try await device.appStore.setAutoRenew(originalTransactionID: original, enabled: false)
            try await device.advance(days: 32)
            await manager.stop()

            let credentials = try #require(again(manager))
            let (relaunched, _) = try await Self.launch(device, server, credentials: credentials)
            #expect(await relaunched.destination(policy: .fetchCurrent) == .paywall)
            await relaunched.stop()

            // Deleted and installed again, signed in to the same account: still the paywall.
            device.reinstall()
            let (reinstalled, _) = try await Self.launch(device, server, credentials: credentials)
            #expect(await reinstalled.destination(policy: .fetchCurrent) == .paywall)
        }
    }

    @Test func entitlementsAndBalancesArriveAsStreamsOnlyWhenTheyChange() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.launch(device, server)
            var entitlements = manager.entitlementUpdates().makeAsyncIterator()
            var balances = manager.balanceUpdates().makeAsyncIterator()
            #expect(await entitlements.next() == [])
            let first = await balances.next()
            _ = try await manager.buy("com.tally.pro.monthly")
            #expect(await entitlements.next()?.map(\.id) == ["pro"])
            let second = await balances.next()
            #expect(first != second, "a subscription with an allowance changes the balances")
        }
    }

    @Test func aSubscriberSkipsOnboardingAndPaywall() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, credentials) = try await Self.launch(device, server)
            _ = try await manager.buy("com.tally.pro.yearly")
            await manager.stop()
            try await device.advance(days: 30)
            let (again, _) = try await Self.launch(device, server, credentials: credentials)
            #expect(await again.destination(policy: .fetchCurrent) == .main)
        }
    }

    private func again(_ manager: PurchaseManager) -> ServerDelivery.Credentials? {
        (manager.delivery as? ServerDelivery)?.credentials
    }
}
