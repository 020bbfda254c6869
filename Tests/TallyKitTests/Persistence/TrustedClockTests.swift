import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// The device's trusted clock (`TrustedClock`): a subscription's expiry is judged on trusted
/// time, so a phone's clock set ahead or back neither ends nor extends it.
@Suite(.timeLimit(.minutes(2))) struct TrustedClockTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func movingTheClockForwardADayBeforeTheRenewalKeepsThePaidSubscription() async throws {
        let device = try await Device()
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        let receipt = try await manager.buy("com.tally.pro.monthly")
        let expiry = try #require(receipt.entitlements.first { $0.id == "pro" }?.expiresAt)
        // One day before the renewal the person sets the phone two days ahead.
        try await device.advance(days: Int(expiry.timeIntervalSince(device.time.now) / 86_400) - 1)
        device.clockOffset = 2 * 86_400

        let state = try await manager.account(.fetchCurrent)
        #expect(state.isActive("pro"), "\(state.snapshot.entitlements)")
        #expect(state.asOf < expiry)
        #expect(await manager.destination(policy: .fetchCurrent) == .main)
        #expect(await manager.destination(policy: .fromCacheOnly) == .main)

        // The app launched again in the same boot, the clock still ahead: still subscribed.
        await manager.stop()
        let (again, _) = try await SubscriptionOnDeviceTests.launch(device)
        #expect(await again.destination(policy: .fetchCurrent) == .main)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func movingTheClockBackAfterTheExpiryDoesNotExtendTheSubscription() async throws {
        let device = try await Device()
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        let receipt = try await manager.buy("com.tally.pro.monthly")
        let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
        try await device.appStore.setAutoRenew(originalTransactionID: original, enabled: false)
        try await device.advance(days: 32)
        device.clockOffset = -10 * 86_400
        #expect(!(try await manager.account(.fetchCurrent).isActive("pro")))
        #expect(await manager.destination(policy: .fetchCurrent) == .paywall)
    }
}
