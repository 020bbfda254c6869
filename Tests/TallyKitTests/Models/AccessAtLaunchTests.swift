import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// Where a subscription-gated app sends its user while the store's answer is still on its way:
/// after a reinstall the device's own records are empty, and a subscriber must not see
/// onboarding or the paywall meanwhile.
@Suite(.timeLimit(.minutes(2))) struct AccessAtLaunchTests {
    /// A reinstalled app's manager on `device`, whose store holds back what the customer owns
    /// until `gate` opens; started, not caught up.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static func launchWaitingForTheStore(_ device: Device, gate: Gate) async throws -> PurchaseManager {
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database)
        let configuration = Device.configuration(productIDs: SubscriptionOnDeviceTests.products) { $0.onboardingEntitlement = "pro" }
        let manager = try await PurchaseManager(
            store: GatedStore(base: device.store, gate: gate), delivery: ledger, database: database, configuration: configuration,
            connectivity: device.connectivity, analytics: device.analytics, clock: device.clock, now: { device.now },
            uptime: { device.uptime })
        await manager.start()
        await gate.arrived()
        return manager
    }

    /// Every answer the app can get without waiting for the store, and the model's.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    static func answersMeanwhile(_ manager: PurchaseManager, _ access: AccessModel) async -> [PurchaseManager.AccessDestination?] {
        var answers: [PurchaseManager.AccessDestination?] = [access.destination]
        for policy in FetchPolicy.allCases where policy != .fetchCurrent {
            answers.append(await manager.destination(policy: policy))
            answers.append(await manager.destination(for: "pro", policy: policy))
        }
        return answers
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func aSubscriberWhoReinstalledIsNeverSentToOnboardingOrThePaywallWhileTheStoreIsRead() async throws {
        let device = try await Device()
        let (first, _) = try await SubscriptionOnDeviceTests.launch(device)
        _ = try await first.buy("com.tally.pro.yearly")
        await first.stop()
        device.reinstall()

        let gate = Gate()
        let manager = try await Self.launchWaitingForTheStore(device, gate: gate)
        #expect(await manager.startupState == .catchingUp)
        let access = AccessModel(manager: manager, entitlement: "pro")
        var shown: [PurchaseManager.AccessDestination?] = []
        access.onChange = { shown.append($0.destination) }
        await access.update()
        // Asked for a fresh state, the answer waits for the store.
        let fetched = Task { await manager.destination(policy: .fetchCurrent) }

        let meanwhile = await Self.answersMeanwhile(manager, access)
        #expect(meanwhile.allSatisfy { $0 == .checking }, "\(meanwhile)")

        await gate.open()
        await manager.waitUntilCaughtUp()
        await eventually { access.destination == .main }
        #expect(access.destination == .main)
        #expect(await fetched.value == .main)
        #expect(await manager.destination() == .main)
        #expect(!shown.contains(.onboarding) && !shown.contains(.paywall), "\(shown)")
        access.stop()
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func someoneWhoNeverPaidStillGetsOnboardingOnceTheStoreAnswered() async throws {
        let device = try await Device()
        let (first, _) = try await SubscriptionOnDeviceTests.launch(device)
        await device.store.nextPurchase(.userCancelled)
        #expect(try await first.purchase("com.tally.pro.monthly") == .cancelled)
        await first.stop()
        device.reinstall()

        let gate = Gate()
        let manager = try await Self.launchWaitingForTheStore(device, gate: gate)
        let access = AccessModel(manager: manager, entitlement: "pro")
        var shown: [PurchaseManager.AccessDestination?] = []
        access.onChange = { shown.append($0.destination) }
        await access.update()
        let meanwhile = await Self.answersMeanwhile(manager, access)
        #expect(meanwhile.allSatisfy { $0 == .checking }, "\(meanwhile)")

        await gate.open()
        await manager.waitUntilCaughtUp()
        // The model moves on by itself once the launch read the store, though the account did not change.
        await eventually { access.destination == .onboarding }
        #expect(access.destination == .onboarding)
        #expect(await manager.destination() == .onboarding)
        #expect(!shown.contains(.paywall) && !shown.contains(.main), "\(shown)")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func aLapsedSubscriberWhoReinstalledGetsThePaywallOnceTheStoreAnswered() async throws {
        let device = try await Device()
        let (first, _) = try await SubscriptionOnDeviceTests.launch(device)
        let receipt = try await first.buy("com.tally.pro.monthly")
        let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
        try await device.appStore.setAutoRenew(originalTransactionID: original, enabled: false)
        try await device.advance(days: 32)
        await first.stop()
        device.reinstall()

        let gate = Gate()
        let manager = try await Self.launchWaitingForTheStore(device, gate: gate)
        let access = AccessModel(manager: manager, entitlement: "pro")
        await access.update()
        #expect(await Self.answersMeanwhile(manager, access).allSatisfy { $0 == .checking })
        await gate.open()
        await manager.waitUntilCaughtUp()
        await eventually { access.destination == .paywall }
        #expect(access.destination == .paywall)
    }
}
