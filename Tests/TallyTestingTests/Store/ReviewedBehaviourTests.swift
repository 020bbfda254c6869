import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// Behaviours that must match the App Store in detail.
@Suite struct AppStoreDetailTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func renewalDateIsPresentEvenWithAutoRenewOff() async throws {
        let fixture = try StoreFixture()
        let bought = try await fixture.buy("com.tally.pro.yearly")
        try await fixture.store.setAutoRenew(originalTransactionID: bought.transactionID, enabled: false)
        let renewal = try await fixture.verifier.verifyRenewalInfo(try await fixture.store.renewalInfo(originalTransactionID: bought.transactionID)).get()
        #expect(renewal.payload.autoRenewStatus == .off)
        #expect(renewal.payload.renewalDate == bought.payload.expiresDate)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func recoveryWithinGraceKeepsThePaidDays() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.updateSettings { $0.billingGracePeriodEnabled = true }
        let bought = try await fixture.buy("com.tally.pro.yearly")
        let expiry = try #require(bought.payload.expiresDate)
        try await fixture.store.failNextRenewal(originalTransactionID: bought.transactionID)
        try await fixture.store.advance(by: .seconds(366 * 86_400))
        try await fixture.store.resolveBillingIssue(originalTransactionID: bought.transactionID)
        try await fixture.store.tick()
        let renewal = try #require(try await fixture.last(.didRenew).transaction?.payload)
        #expect(renewal.purchaseDate == expiry)
        #expect(
            renewal.expiresDate
                == Calendar(identifier: .gregorian).date(byAdding: .year, value: 1, to: expiry).map {
                    Date(timeIntervalSince1970: $0.timeIntervalSince1970)
                })
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func payAsYouGoOfferNamesItsWholeDurationAndDiscountsEachPeriod() async throws {
        let fixture = try StoreFixture()
        _ = try await fixture.buy("com.tally.pro.yearly")  // the group is taken: no trial
        try await fixture.store.expire(originalTransactionID: try await fixture.store.subscriptionStatuses()[0].transaction.payload.originalTransactionID!)
        let resubscribed = try await fixture.buy(
            "com.tally.pro.monthly", SimulatedAppStore.PurchaseOptions(promotionalOfferID: "com.tally.pro.monthly.winback50"))
        #expect(resubscribed.payload.offerType == .promotional)
        #expect(resubscribed.payload.offerPeriod == "P3M")
        #expect(resubscribed.payload.price == 2_490)
        // Each discounted period is one month long.
        #expect(resubscribed.payload.expiresDate == Calendar(identifier: .gregorian).date(byAdding: .month, value: 1, to: StoreFixture.start))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func recentStartSurvivesAShortLapse() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.buy("com.tally.pro.yearly")
        try await fixture.store.advance(by: .seconds(3600))
        try await fixture.store.expire(originalTransactionID: first.transactionID)
        try await fixture.store.advance(by: .seconds(60))
        _ = try await fixture.buy("com.tally.pro.yearly")
        let renewal = try await fixture.verifier.verifyRenewalInfo(try await fixture.store.renewalInfo(originalTransactionID: first.transactionID)).get()
        #expect(renewal.payload.recentSubscriptionStartDate == StoreFixture.start)
        // A lapse longer than the sandbox's ten minutes starts a new run.
        try await fixture.store.expire(originalTransactionID: first.transactionID)
        try await fixture.store.advance(by: .seconds(3600))
        _ = try await fixture.buy("com.tally.pro.yearly")
        let later = try await fixture.verifier.verifyRenewalInfo(try await fixture.store.renewalInfo(originalTransactionID: first.transactionID)).get()
        #expect(later.payload.recentSubscriptionStartDate == (await fixture.store.now))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func choosingAPlanTurnsRenewalBackOn() async throws {
        let fixture = try StoreFixture()
        let monthly = try await fixture.buy("com.tally.pro.monthly")
        try await fixture.store.setAutoRenew(originalTransactionID: monthly.transactionID, enabled: false)
        _ = try await fixture.buy("com.tally.pro.yearly")
        let status = try await fixture.store.subscriptionStatuses()[0]
        #expect(try await fixture.verifier.verifyRenewalInfo(status.renewalInfo).get().payload.autoRenewStatus == .on)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func familyMembersHaveTheirOwnTransactionsAndLoseThemWithARefund() async throws {
        let fixture = try StoreFixture()
        let bought = try await fixture.buy("com.tally.zorya.lifetime")
        let shared = try await fixture.store.shareWithFamily(transactionID: bought.transactionID)
        #expect(shared.payload.originalTransactionID == shared.transactionID)
        #expect(shared.payload.originalTransactionID != bought.payload.originalTransactionID)
        try await fixture.store.refund(transactionID: bought.transactionID, revocation: SimulatedAppStore.Revocation(reason: .appIssue))
        try await fixture.store.tick()
        let revoke = try await fixture.last(.revoke)
        #expect(revoke.transaction?.payload.transactionID == shared.transactionID)
        #expect(revoke.transaction?.payload.revocationReason == .appIssue)
        await #expect(throws: SimulatedAppStoreError(.invalidState, "")) { try await fixture.store.revokeFamilySharing(transactionID: bought.transactionID) }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func datesAreWholeMillisecondsOnTheSystemClock() async throws {
        var configuration = SimulatedAppStore.Configuration(catalog: StoreFixture.catalog, bundleID: StoreFixture.bundleID)
        configuration.firstTransactionNumber = 2_000_000_900_000_001
        let store = try SimulatedAppStore(
            configuration: configuration, authority: StoreFixture.authority,
            time: .system(now: { Date(timeIntervalSince1970: 1_795_256_524.9654421) }))
        guard case .success(let transaction) = try await store.purchase("com.tally.echo.3hours") else { return }
        let json = String(decoding: Base64.decode(transaction.jws.split(separator: ".")[1].utf8, alphabet: .url)!, as: UTF8.self)
        #expect(json.contains("\"purchaseDate\":1795256524965,"))
        #expect(transaction.payload.appTransactionID != nil)
    }
}

@Suite struct StoreConcurrencyTests {
    /// A transport that holds each post until opened: a slow webhook, then a quick one.
    final class Gate: NotificationTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private var isOpen = false
        private var postCount = 0
        var posts: Int { lock.withLock { postCount } }
        func post(_ body: Data, to url: URL) async throws -> Int {
            lock.withLock { postCount += 1 }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let passes = lock.withLock { () -> Bool in
                    if isOpen { return true }
                    waiting.append(continuation)
                    return false
                }
                if passes { continuation.resume() }
            }
            return 200
        }
        var held: Int { lock.withLock { waiting.count } }
        /// Lets the held posts go, and every later one through: a delivery that starts after
        /// the held ones were let go is not left waiting for ever.
        func open() {
            let all = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
                isOpen = true
                defer { waiting.removeAll() }
                return waiting
            }
            for continuation in all { continuation.resume() }
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func advancingWhileADeliveryIsInFlightDoesNotSpin() async throws {
        var configuration = SimulatedAppStore.Configuration(catalog: StoreFixture.catalog, bundleID: StoreFixture.bundleID)
        configuration.notificationURL = StoreFixture.notificationURL
        let gate = Gate()
        let store = try SimulatedAppStore(
            configuration: configuration, authority: StoreFixture.authority,
            time: .manual(start: StoreFixture.start), transport: gate)
        _ = try await store.purchase("com.tally.echo.3hours")
        let first = Task { try await store.tick() }
        await eventually("the first delivery held") { gate.held > 0 }
        // The first delivery is held; time can still move and purchases still work.
        _ = try await store.purchase("com.tally.echo.3hours")
        try await store.advance(by: .seconds(3600))
        #expect(await store.now == StoreFixture.start.addingTimeInterval(3600))
        gate.open()
        try await first.value
        #expect(gate.posts == 2)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aStoreRestartedWithoutANotificationURLStillTicks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let stateFile = folder.fileURL("state.json")
        var configuration = SimulatedAppStore.Configuration(catalog: StoreFixture.catalog, bundleID: StoreFixture.bundleID)
        configuration.notificationURL = StoreFixture.notificationURL
        configuration.stateFile = stateFile
        let first = try SimulatedAppStore(
            configuration: configuration, authority: StoreFixture.authority,
            time: .manual(start: StoreFixture.start), transport: NotificationInbox())
        _ = try await first.purchase("com.tally.echo.3hours")  // queued, not delivered
        configuration.notificationURL = nil
        let restarted = try SimulatedAppStore(
            configuration: configuration, authority: StoreFixture.authority,
            time: .manual(start: StoreFixture.start), transport: NotificationInbox())
        try await restarted.tick()
        try await restarted.advance(by: .seconds(86_400))
        #expect(await restarted.notifications.count == 1)
    }
}
