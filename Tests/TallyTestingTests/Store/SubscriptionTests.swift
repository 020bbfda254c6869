import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@Suite struct SubscriptionTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func freeTrialThenARenewalAfterAMonthOfSimulatedTime() async throws {
        let fixture = try StoreFixture()
        let updates = await fixture.store.updates()
        let first = try await fixture.buy("com.tally.pro.monthly")
        let trial = try await fixture.verifier.verifyTransaction(first.jws).get().payload
        #expect(trial.type == .autoRenewableSubscription)
        #expect(trial.offerType == .introductory)
        #expect(trial.offerDiscountType == .freeTrial)
        #expect(trial.offerPeriod == "P1W")
        #expect(trial.price == 0)
        #expect(trial.expiresDate == StoreFixture.start.addingTimeInterval(7 * 86_400))
        #expect(trial.subscriptionGroupIdentifier != nil)
        #expect(trial.webOrderLineItemID != nil)

        // The trial ends after a week: the first paid period begins.
        try await fixture.store.advance(by: StoreFixture.day * 8)
        var iterator = updates.makeAsyncIterator()
        let renewal = try #require(await iterator.next())
        let paid = try await fixture.verifier.verifyTransaction(renewal.jws).get().payload
        #expect(paid.transactionReason == .renewal)
        #expect(paid.originalTransactionID == trial.transactionID)
        #expect(paid.transactionID != trial.transactionID)
        #expect(paid.webOrderLineItemID != trial.webOrderLineItemID)
        #expect(paid.price == 4_990)
        #expect(paid.offerType == nil)
        #expect(paid.purchaseDate == trial.expiresDate)
        let monthEnd = try #require(paid.expiresDate)

        // A month of simulated time later: another renewal, signed at the renewal moment.
        try await fixture.store.advance(by: StoreFixture.day * 31)
        let next = try #require(await iterator.next())
        let second = try await fixture.verifier.verifyTransaction(next.jws).get().payload
        #expect(second.purchaseDate == monthEnd)
        #expect(second.transactionReason == .renewal)

        let renewals = try await fixture.deliveredNotifications().filter { $0.payload.notificationType == .didRenew }
        #expect(renewals.count == 2)
        #expect(renewals.allSatisfy { $0.renewalInfo?.payload.autoRenewStatus == .on && $0.payload.data?.status == .active })
        let subscribed = try await fixture.last(.subscribed)
        #expect(subscribed.payload.subtype == .initialBuy)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func autoRenewOffEndsTheSubscriptionAtItsExpiry() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.buy("com.tally.pro.yearly")
        let original = first.payload.originalTransactionID!
        try await fixture.store.setAutoRenew(originalTransactionID: original, enabled: false)
        try await fixture.store.tick()
        let change = try await fixture.last(.didChangeRenewalStatus)
        #expect(change.payload.subtype == .autoRenewDisabled)
        #expect(change.renewalInfo?.payload.autoRenewStatus == .off)
        #expect(try await fixture.store.currentEntitlements().map(\.productID) == ["com.tally.pro.yearly"])

        try await fixture.store.advance(by: StoreFixture.day * 366)
        let expired = try await fixture.last(.expired)
        #expect(expired.payload.subtype == .voluntary)
        #expect(expired.payload.data?.status == .expired)
        #expect(expired.renewalInfo?.payload.expirationIntent == .customerCancelled)
        #expect(try await fixture.store.currentEntitlements().isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func resubscribingKeepsTheOriginalTransactionAndGetsNoSecondTrial() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.buy("com.tally.pro.monthly")
        try await fixture.store.expire(originalTransactionID: first.payload.originalTransactionID!)
        let again = try await fixture.buy("com.tally.pro.monthly")
        #expect(again.payload.originalTransactionID == first.payload.originalTransactionID)
        #expect(again.payload.offerType == nil)
        #expect(again.payload.price == 4_990)
        try await fixture.store.tick()
        #expect(try await fixture.last(.subscribed).payload.subtype == .resubscribe)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func billingRetryWithGraceThenRecovery() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.updateSettings { $0.billingGracePeriodEnabled = true }
        let first = try await fixture.buy("com.tally.pro.yearly")
        let original = first.payload.originalTransactionID!
        try await fixture.store.failNextRenewal(originalTransactionID: original)
        try await fixture.store.advance(by: StoreFixture.day * 366)
        let failed = try await fixture.last(.didFailToRenew)
        #expect(failed.payload.subtype == .gracePeriod)
        #expect(failed.payload.data?.status == .billingGracePeriod)
        #expect(failed.renewalInfo?.payload.isInBillingRetryPeriod == true)
        #expect(failed.renewalInfo?.payload.gracePeriodExpiresDate != nil)
        // Still entitled during grace.
        #expect(try await fixture.store.currentEntitlements().map(\.productID) == ["com.tally.pro.yearly"])

        try await fixture.store.advance(by: StoreFixture.day * 17)
        #expect(try await fixture.last(.gracePeriodExpired).payload.data?.status == .billingRetry)
        #expect(try await fixture.store.currentEntitlements().isEmpty)

        try await fixture.store.resolveBillingIssue(originalTransactionID: original)
        try await fixture.store.tick()
        let recovered = try await fixture.last(.didRenew)
        #expect(recovered.payload.subtype == .billingRecovery)
        #expect(recovered.transaction?.payload.transactionReason == .renewal)
        #expect(try await fixture.store.currentEntitlements().count == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func billingRetryThatNeverRecoversExpires() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.updateSettings { $0.billingRetryOnRenewal = true }
        _ = try await fixture.buy("com.tally.pro.yearly")
        try await fixture.store.advance(by: StoreFixture.day * (366 + 61))
        #expect(try await fixture.last(.didFailToRenew).payload.subtype == nil)
        let expired = try await fixture.last(.expired)
        #expect(expired.payload.subtype == .billingRetry)
        #expect(expired.renewalInfo?.payload.expirationIntent == .billingError)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func upgradeIsImmediateAndDowngradeWaitsForTheRenewal() async throws {
        let fixture = try StoreFixture()
        let monthly = try await fixture.buy("com.tally.pro.monthly")
        let yearly = try await fixture.buy("com.tally.pro.yearly")
        #expect(yearly.transactionID != monthly.transactionID)
        #expect(yearly.payload.originalTransactionID == monthly.payload.originalTransactionID)
        #expect(yearly.payload.expiresDate == StoreFixture.start.addingTimeInterval(365 * 86_400))
        #expect(try await fixture.store.transaction(monthly.transactionID).payload.isUpgraded == true)
        try await fixture.store.tick()
        #expect(try await fixture.last(.didChangeRenewalPref).payload.subtype == .upgrade)

        let downgrade = try await fixture.buy("com.tally.pro.monthly")
        #expect(downgrade.transactionID == yearly.transactionID)  // nothing changes until the renewal
        try await fixture.store.tick()
        let pref = try await fixture.last(.didChangeRenewalPref)
        #expect(pref.payload.subtype == .downgrade)
        #expect(pref.renewalInfo?.payload.autoRenewProductID == "com.tally.pro.monthly")
        try await fixture.store.advance(by: StoreFixture.day * 366)
        #expect(try await fixture.last(.didRenew).transaction?.payload.productID == "com.tally.pro.monthly")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func promotionalOfferOnAnActiveSubscriptionIsRedeemedAtTheNextRenewal() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.buy("com.tally.pro.monthly")
        _ = try await fixture.buy("com.tally.pro.monthly", SimulatedAppStore.PurchaseOptions(promotionalOfferID: "com.tally.pro.monthly.winback50"))
        try await fixture.store.tick()
        #expect(try await fixture.last(.offerRedeemed).transaction?.payload.transactionID == first.transactionID)
        try await fixture.store.advance(by: StoreFixture.day * 8)
        let renewal = try await fixture.last(.didRenew).transaction?.payload
        #expect(renewal?.offerType == .promotional)
        #expect(renewal?.offerIdentifier == "com.tally.pro.monthly.winback50")
        #expect(renewal?.price == 2_490)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func timeRateCompressesPeriodsAsXcodeDoes() async throws {
        let fixture = try StoreFixture(timeRate: .monthlyRenewalEveryThirtySeconds)
        let yearly = try await fixture.buy("com.tally.pro.yearly")
        #expect(yearly.payload.expiresDate == StoreFixture.start.addingTimeInterval(6 * 60))
        try await fixture.store.advance(by: .seconds(6 * 60 + 1))
        #expect(try await fixture.last(.didRenew).transaction?.payload.purchaseDate == StoreFixture.start.addingTimeInterval(360))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func statusesAndRenewalInfoAreSigned() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.buy("com.tally.pro.monthly", SimulatedAppStore.PurchaseOptions(appAccountToken: UUID()))
        let statuses = try await fixture.store.subscriptionStatuses()
        #expect(statuses.count == 1)
        #expect(statuses[0].status == .active)
        let renewal = try await fixture.verifier.verifyRenewalInfo(statuses[0].renewalInfo).get().payload
        #expect(renewal.originalTransactionID == first.payload.originalTransactionID)
        #expect(renewal.renewalDate == first.payload.expiresDate)
        #expect(renewal.appAccountToken == first.payload.appAccountToken)
        #expect(renewal.renewalPrice == 4_990)
    }
}
