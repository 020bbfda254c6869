import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@Suite struct RefundTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func refundOfAConsumableIsNotifiedAndPublished() async throws {
        let fixture = try StoreFixture()
        let updates = await fixture.store.updates()
        let bought = try await fixture.buy("com.tally.photo.credits.100")
        try await fixture.store.finish(transactionID: bought.transactionID)
        try await fixture.store.refund(transactionID: bought.transactionID, revocation: SimulatedAppStore.Revocation(reason: .appIssue))
        var iterator = updates.makeAsyncIterator()
        let revoked = try #require(await iterator.next())
        #expect(revoked.transactionID == bought.transactionID)
        try await fixture.store.tick()
        let refund = try await fixture.last(.refund)
        let transaction = try #require(refund.transaction?.payload)
        #expect(transaction.transactionID == bought.transactionID)
        #expect(transaction.revocationReason == .appIssue)
        #expect(transaction.revocationType == .refundFull)
        #expect(transaction.revocationDate == StoreFixture.start)
        await #expect(throws: SimulatedAppStoreError(.invalidState, "")) { try await fixture.store.refund(transactionID: bought.transactionID) }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func refundReversedAndDeclinedAndConsumptionRequest() async throws {
        let fixture = try StoreFixture()
        let bought = try await fixture.buy("com.tally.echo.3hours")
        try await fixture.store.requestConsumptionInformation(transactionID: bought.transactionID, reason: .unsatisfiedWithPurchase)
        try await fixture.store.refund(transactionID: bought.transactionID)
        try await fixture.store.reverseRefund(transactionID: bought.transactionID)
        try await fixture.store.declineRefund(transactionID: bought.transactionID)
        try await fixture.store.tick()
        #expect(try await fixture.last(.consumptionRequest).payload.data?.consumptionRequestReason == .unsatisfiedWithPurchase)
        #expect(try await fixture.last(.refundReversed).transaction?.payload.revocationDate == nil)
        #expect(try await fixture.last(.refundDeclined).transaction?.payload.transactionID == bought.transactionID)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func refundedSubscriptionEndsAccess() async throws {
        let fixture = try StoreFixture()
        let bought = try await fixture.buy("com.tally.pro.yearly")
        try await fixture.store.refund(transactionID: bought.transactionID, revocation: SimulatedAppStore.Revocation(type: .refundProrated, percentage: 50_000))
        #expect(try await fixture.store.currentEntitlements().isEmpty)
        try await fixture.store.tick()
        let refund = try await fixture.last(.refund)
        #expect(refund.payload.data?.status == .revoked)
        #expect(refund.transaction?.payload.revocationPercentage == 50_000)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func familySharingAndItsRevocation() async throws {
        let fixture = try StoreFixture()
        let bought = try await fixture.buy("com.tally.zorya.lifetime")
        let shared = try await fixture.store.shareWithFamily(transactionID: bought.transactionID)
        #expect(shared.payload.inAppOwnershipType == .familyShared)
        try await fixture.store.revokeFamilySharing(transactionID: shared.transactionID)
        try await fixture.store.tick()
        let revoke = try await fixture.last(.revoke)
        #expect(revoke.transaction?.payload.revocationType == .familyRevoke)
        #expect(revoke.transaction?.payload.inAppOwnershipType == .familyShared)
        await #expect(throws: SimulatedAppStoreError(.invalidState, "")) {
            try await fixture.store.shareWithFamily(transactionID: (try await fixture.buy("com.tally.echo.3hours")).transactionID)
        }
    }
}

@Suite struct NotificationDeliveryTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func deliveryThatFailsTwiceLandsOnceOnApplesSchedule() async throws {
        let fixture = try StoreFixture()
        fixture.inbox.script([.status(500), .unreachable])
        _ = try await fixture.buy("com.tally.echo.3hours")
        try await fixture.store.tick()
        #expect(fixture.inbox.attempts.count == 1)
        try await fixture.store.advance(by: .seconds(59 * 60))
        #expect(fixture.inbox.attempts.count == 1)  // not due before an hour
        try await fixture.store.advance(by: .seconds(60))
        #expect(fixture.inbox.attempts.count == 2)
        try await fixture.store.advance(by: .seconds(12 * 3600))
        #expect(fixture.inbox.attempts.count == 3)
        try await fixture.store.advance(by: .seconds(200 * 3600))
        #expect(fixture.inbox.attempts.count == 3)  // nothing more after it landed

        let attempts = fixture.inbox.attempts
        #expect(Set(attempts.map(\.signedPayload)).count == 1)  // the same notification each time
        #expect(fixture.inbox.delivered.count == 1)
        let record = try #require(await fixture.store.notifications.first)
        #expect(record.attempts.map(\.result) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "NO_RESPONSE", "SUCCESS"])
        #expect(
            record.attempts.map(\.date) == [
                StoreFixture.start, StoreFixture.start.addingTimeInterval(3600),
                StoreFixture.start.addingTimeInterval(13 * 3600),
            ])
        #expect(record.delivered)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func deliveryGivesUpAfterFiveRetries() async throws {
        let fixture = try StoreFixture()
        fixture.inbox.script(Array(repeating: .status(503), count: 10))
        _ = try await fixture.buy("com.tally.echo.3hours")
        try await fixture.store.advance(by: .seconds(400 * 3600))
        #expect(fixture.inbox.attempts.count == 6)
        let record = try #require(await fixture.store.notifications.first)
        #expect(!record.delivered)
        #expect(record.nextAttemptAt == nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func everyNotificationUUIDIsUnique() async throws {
        let fixture = try StoreFixture()
        for _ in 0..<5 { _ = try await fixture.buy("com.tally.echo.3hours") }
        _ = try await fixture.store.requestTestNotification()
        try await fixture.store.tick()
        let uuids = try await fixture.deliveredNotifications().compactMap(\.payload.notificationUUID)
        #expect(uuids.count == 6)
        #expect(Set(uuids).count == 6)
    }

    /// Every notification type the issue names is produced, signed, and verifies with its nested data.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func everyEventHasItsSignedNotification() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.updateSettings { $0.billingGracePeriodEnabled = true }
        let consumable = try await fixture.buy("com.tally.echo.3hours")  // ONE_TIME_CHARGE
        let monthly = try await fixture.buy("com.tally.pro.monthly")  // SUBSCRIBED
        let original = monthly.payload.originalTransactionID!
        try await fixture.store.advance(by: StoreFixture.day * 8)  // DID_RENEW
        // OFFER_REDEEMED
        _ = try await fixture.buy("com.tally.pro.monthly", SimulatedAppStore.PurchaseOptions(promotionalOfferID: "com.tally.pro.monthly.winback50"))
        try await fixture.store.setAutoRenew(originalTransactionID: original, enabled: false)  // DID_CHANGE_RENEWAL_STATUS
        try await fixture.store.setAutoRenew(originalTransactionID: original, enabled: true)
        _ = try await fixture.buy("com.tally.pro.yearly")  // DID_CHANGE_RENEWAL_PREF
        try await fixture.store.failNextRenewal(originalTransactionID: original)
        try await fixture.store.advance(by: StoreFixture.day * 366)  // DID_FAIL_TO_RENEW
        try await fixture.store.advance(by: StoreFixture.day * 17)  // GRACE_PERIOD_EXPIRED
        try await fixture.store.advance(by: StoreFixture.day * 61)  // EXPIRED
        try await fixture.store.requestConsumptionInformation(transactionID: consumable.transactionID)  // CONSUMPTION_REQUEST
        try await fixture.store.refund(transactionID: consumable.transactionID)  // REFUND
        try await fixture.store.reverseRefund(transactionID: consumable.transactionID)  // REFUND_REVERSED
        try await fixture.store.declineRefund(transactionID: consumable.transactionID)  // REFUND_DECLINED
        let lifetime = try await fixture.buy("com.tally.zorya.lifetime")
        let shared = try await fixture.store.shareWithFamily(transactionID: lifetime.transactionID)
        try await fixture.store.revokeFamilySharing(transactionID: shared.transactionID)  // REVOKE
        _ = try await fixture.store.requestTestNotification()  // TEST
        try await fixture.store.tick()

        let types = Set(try await fixture.deliveredNotifications().compactMap(\.payload.notificationType))
        let expected: Set<NotificationType> = [
            .subscribed, .didRenew, .didFailToRenew, .gracePeriodExpired, .expired, .didChangeRenewalStatus,
            .didChangeRenewalPref, .offerRedeemed, .refund, .refundReversed, .refundDeclined, .consumptionRequest,
            .revoke, .oneTimeCharge, .test,
        ]
        #expect(expected.subtracting(types).isEmpty, "missing: \(expected.subtracting(types))")
    }
}
