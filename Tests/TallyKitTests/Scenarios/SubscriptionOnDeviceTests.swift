import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// A subscription app without a server: the subscription is verified and kept by the on-device ledger,
/// its expiry judged on the device's trusted time, onboarding gated on a confirmed payment.
@Suite(.timeLimit(.minutes(2))) struct SubscriptionOnDeviceTests {
    static let products = ["com.tally.pro.monthly", "com.tally.pro.yearly"]

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static func launch(
        _ device: Device, _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> (PurchaseManager, OnDeviceLedger) {
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database)
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: products) {
            $0.onboardingEntitlement = "pro"
            configure(&$0)
        }
        return (manager, ledger)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aNonRenewingSeasonPassEndsAfterItsDurationInTheCatalog() async throws {
        let device = try await Device()
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database)
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: ["com.tally.echo.season"])
        let bought = try await manager.buy("com.tally.echo.season")
        let pass = try #require(bought.entitlements.first { $0.id == "echo.season" })
        #expect(pass.active)
        // Examples/tally.json gives the season pass 90 days.
        let purchased = try #require(try await device.appStore.transaction(bought.transactionID).payload.purchaseDate)
        #expect(pass.expiresAt == purchased.addingTimeInterval(90 * 86_400))

        try await device.advance(days: 89)
        #expect(try await manager.account(.fetchCurrent).isActive("echo.season"))
        try await device.advance(days: 2)
        #expect(try await !manager.account(.fetchCurrent).isActive("echo.season"))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aSubscriberInABillingGracePeriodKeepsAccessUntilItEnds() async throws {
        let device = try await Device { $0.billingGracePeriodEnabled = true }
        let (manager, _) = try await Self.launch(device)
        let receipt = try await manager.buy("com.tally.pro.monthly")
        let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
        let expiry = try #require(receipt.entitlements.first { $0.id == "pro" }?.expiresAt)

        // The card fails at the renewal: Apple keeps full service through the grace period.
        try await device.appStore.failNextRenewal(originalTransactionID: original)
        try await device.advance(seconds: Int(expiry.timeIntervalSince(device.time.now)) + 86_400)
        let state = try await manager.refresh()
        let pro = try #require(state.snapshot.entitlements.first { $0.id == "pro" })
        #expect(pro.active, "\(pro)")
        #expect(pro.inGracePeriod)
        #expect(pro.willRenew == true)
        // Until the grace period's end, as a server reports it.
        #expect((pro.expiresAt ?? .distantPast) > device.time.now)
        #expect(await manager.destination(policy: .fetchCurrent) == .main)

        // The grace period ends (16 days at most for a month) without a payment: access ends.
        try await device.advance(days: 20)
        _ = try await manager.refresh()
        let after = try await manager.account(.fetchCurrent)
        #expect(!after.isActive("pro"), "\(after.snapshot.entitlements)")
        #expect(after.snapshot.entitlements.first { $0.id == "pro" }?.inGracePeriod == false)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func turningAutoRenewOffIsShownAsNotRenewing() async throws {
        let device = try await Device()
        let (manager, _) = try await Self.launch(device)
        let receipt = try await manager.buy("com.tally.pro.monthly")
        let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
        try await device.appStore.setAutoRenew(originalTransactionID: original, enabled: false)
        let state = try await manager.refresh()
        let pro = try #require(state.snapshot.entitlements.first { $0.id == "pro" })
        #expect(pro.active)
        #expect(pro.willRenew == false)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func thePaywallOffersTheFreeTrialOnlyToThoseWhoNeverHadIt() async throws {
        let device = try await Device()
        let (manager, _) = try await Self.launch(device)
        let paywall = await PaywallModel(manager: manager, productIDs: ["com.tally.pro.monthly"], language: .english)
        await paywall.load()
        #expect(await paywall.items.first?.introductoryOffer == "1 week free, then $4.99 / month")
        let ukrainian = await PaywallModel(manager: manager, productIDs: ["com.tally.pro.monthly"], language: .ukrainian)
        await ukrainian.load()
        #expect(await ukrainian.items.first?.introductoryOffer?.hasPrefix("1 тиждень безкоштовно, далі ") == true)

        // Subscribed once: the store says no more trial in this group, and the paywall shows none.
        _ = try await manager.buy("com.tally.pro.monthly")
        await paywall.load()
        #expect(await paywall.items.first?.introductoryOffer == nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func introductoryOffersReadWellInBothLanguages() async throws {
        let monthly = SubscriptionTerms.Period(value: 1, unit: .month)
        func product(_ offer: SubscriptionTerms.IntroductoryOffer) -> ProductDetails {
            ProductDetails(
                id: "p", kind: .autoRenewable, displayName: "Pro", description: "", displayPrice: "$4.99", price: 4_990, currencyCode: "USD",
                subscription: SubscriptionTerms(period: monthly, groupID: "g", introductoryOffer: offer, isEligibleForIntroductoryOffer: true))
        }
        let payAsYouGo = product(.init(paymentMode: .payAsYouGo, period: monthly, periodCount: 3, displayPrice: "$0.99"))
        #expect(await PaywallModel.introductoryOffer(payAsYouGo, language: .english) == "$0.99 / month for 3 months, then $4.99 / month")
        #expect(await PaywallModel.introductoryOffer(payAsYouGo, language: .ukrainian) == "$0.99 / місяць на 3 місяці, далі $4.99 / місяць")
        let upFront = product(.init(paymentMode: .payUpFront, period: .init(value: 6, unit: .month), periodCount: 1, displayPrice: "$9.99"))
        #expect(await PaywallModel.introductoryOffer(upFront, language: .english) == "$9.99 for 6 months, then $4.99 / month")
        #expect(await PaywallModel.introductoryOffer(upFront, language: .ukrainian) == "$9.99 за 6 місяців, далі $4.99 / місяць")
        let trial = product(.init(paymentMode: .freeTrial, period: .init(value: 3, unit: .day), periodCount: 1, displayPrice: "$0.00"))
        #expect(await PaywallModel.introductoryOffer(trial, language: .ukrainian) == "3 дні безкоштовно, далі $4.99 / місяць")
        var ineligible = trial
        ineligible.subscription?.isEligibleForIntroductoryOffer = false
        #expect(await PaywallModel.introductoryOffer(ineligible, language: .english) == nil)
    }

    /// A subscriber whose subscription lapsed, then deleted the app and installed it again.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    func lapsedAndReinstalled(_ device: Device) async throws {
        let (manager, _) = try await Self.launch(device)
        let receipt = try await manager.buy("com.tally.pro.monthly")
        let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
        try await device.appStore.setAutoRenew(originalTransactionID: original, enabled: false)
        try await device.advance(days: 32)
        #expect(await manager.destination(policy: .fetchCurrent) == .paywall)
        await manager.stop()
        device.reinstall()
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aLapsedSubscriberWhoReinstallsIsSentToThePaywallAtLaunch() async throws {
        let device = try await Device()
        try await lapsedAndReinstalled(device)
        // The new install knows nothing of its own; the store's history says a payment was made.
        let (reinstalled, _) = try await Self.launch(device)
        #expect(await reinstalled.destination(policy: .fromCacheOnly) == .paywall)
        #expect(await reinstalled.destination(policy: .fetchCurrent) == .paywall)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aLapsedSubscriberWhoReinstallsOfflineIsSentToThePaywallByRestore() async throws {
        let device = try await Device()
        try await lapsedAndReinstalled(device)
        // The first launch cannot reach the store: onboarding, as for anyone unknown…
        await device.store.setReachable(false)
        let (reinstalled, _) = try await Self.launch(device)
        #expect(await reinstalled.destination(policy: .fetchCurrent) == .onboarding)
        // …until Restore Purchases reads the store's history.
        await device.store.setReachable(true)
        let restored = try await reinstalled.restore()
        #expect(restored.account.snapshot.entitlements.map(\.id) == ["pro"])
        #expect(!restored.account.isActive("pro"))
        #expect(await reinstalled.destination(policy: .fetchCurrent) == .paywall)
        // Remembered: the next launch goes to the paywall even without the store.
        await reinstalled.stop()
        await device.store.setReachable(false)
        let (next, _) = try await Self.launch(device)
        #expect(await next.destination(policy: .fromCacheOnly) == .paywall)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func someoneWhoNeverPaidStillGoesThroughOnboardingAfterAReinstall() async throws {
        let device = try await Device()
        let (manager, _) = try await Self.launch(device)
        await device.store.nextPurchase(.userCancelled)
        #expect(try await manager.purchase("com.tally.pro.monthly") == .cancelled)
        await manager.stop()
        device.reinstall()
        let (reinstalled, _) = try await Self.launch(device)
        #expect(await reinstalled.destination(policy: .fetchCurrent) == .onboarding)
        _ = try await reinstalled.restore()
        #expect(await reinstalled.destination(policy: .fetchCurrent) == .onboarding)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anActiveSubscriberWhoReinstallsGoesStraightToTheApp() async throws {
        let device = try await Device()
        let (manager, _) = try await Self.launch(device)
        _ = try await manager.buy("com.tally.pro.yearly")
        await manager.stop()
        device.reinstall()
        let (reinstalled, _) = try await Self.launch(device)
        #expect(await reinstalled.destination(policy: .fromCacheOnly) == .main)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func afterTheOfflineWindowTheDestinationIsReadFromTheLedgerEvenBeforeStart() async throws {
        let device = try await Device()
        let window: (inout PurchaseManager.Configuration) -> Void = { $0.offlineAccessWindow = 3 * 86_400 }
        let (manager, _) = try await Self.launch(device, window)
        _ = try await manager.buy("com.tally.pro.yearly")
        await manager.stop()
        // Four days away: the cache no longer counts, the ledger still knows the yearly subscription.
        try await device.advance(days: 4)
        let database = try await device.database()
        let notStarted = try await device.manager(delivery: try await device.onDeviceLedger(database), database: database, productIDs: Self.products) {
            $0.onboardingEntitlement = "pro"
            window(&$0)
        }
        #expect(await notStarted.startupState == .stopped)
        #expect(await notStarted.destination(policy: .fromCacheOnly) == .main)
        let state = try await notStarted.account(.fromCacheOnly)
        #expect(state.source == .fetched && state.isActive("pro"), "\(state)")
    }
}
