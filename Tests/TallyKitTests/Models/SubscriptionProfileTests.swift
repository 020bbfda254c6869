import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// The profile screen of a subscription app on the device: plan, price, Pro badge, the renewal
/// or end date in words, in English and Ukrainian, following the subscription as it changes.
@Suite(.timeLimit(.minutes(2))) struct SubscriptionProfileTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    static func profile(_ device: Device, language: TallyLanguage = .english) async throws -> (SubscriptionProfileModel, PurchaseManager) {
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        let profile = SubscriptionProfileModel(manager: manager, entitlement: "pro", language: language)
        await profile.update()
        return (profile, manager)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func aSubscriberSeesThePlanTheBadgeAndTheRenewalDate() async throws {
        let device = try await Device()
        let (profile, manager) = try await Self.profile(device)
        #expect(profile.plan == nil)
        #expect(!profile.isPro)

        let receipt = try await manager.buy("com.tally.pro.monthly")
        await profile.update(policy: .fetchCurrent)
        let expiry = try #require(receipt.entitlements.first { $0.id == "pro" }?.expiresAt)
        let plan = try #require(profile.plan)
        #expect(profile.isPro)
        #expect(profile.badgeTitle == "Pro")
        #expect(plan.productID == "com.tally.pro.monthly")
        #expect(plan.displayPrice == "$4.99", "\(plan)")
        #expect(plan.billingText == "$4.99 / month", "\(plan)")
        #expect(plan.status == .renews(on: expiry))
        #expect(plan.statusText.hasPrefix("Renews on "), "\(plan.statusText)")
        #expect(plan.statusText.contains("2026"), "\(plan.statusText)")
        #expect(profile.manageTitle == "Manage Subscription")
        #expect(SubscriptionProfileModel.manageSubscriptionsURL.host == "apps.apple.com")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func turningRenewalOffThenTheEndShowAsTheySpeakInUkrainian() async throws {
        let device = try await Device()
        let (profile, manager) = try await Self.profile(device, language: .ukrainian)
        let receipt = try await manager.buy("com.tally.pro.monthly")
        let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
        try await device.appStore.setAutoRenew(originalTransactionID: original, enabled: false)
        _ = try await manager.refresh()
        await profile.update(policy: .fromCacheOnly)
        guard case .ends = profile.plan?.status else {
            Issue.record("expected an end date, got \(String(describing: profile.plan))")
            return
        }
        #expect(profile.plan?.statusText.hasPrefix("Закінчиться ") == true, "\(String(describing: profile.plan?.statusText))")
        #expect(profile.manageTitle == "Керувати підпискою")
        #expect(profile.plan?.billingText == "$4.99 / місяць")

        try await device.advance(days: 32)
        _ = try await manager.refresh()
        await profile.update(policy: .fromCacheOnly)
        #expect(!profile.isPro)
        guard case .expired = profile.plan?.status else {
            Issue.record("expected expired, got \(String(describing: profile.plan))")
            return
        }
        #expect(profile.plan?.statusText.hasPrefix("Закінчилася") == true)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func aFailedPaymentInTheGracePeriodSaysSoAndKeepsTheBadge() async throws {
        let device = try await Device { $0.billingGracePeriodEnabled = true }
        let (profile, manager) = try await Self.profile(device)
        let receipt = try await manager.buy("com.tally.pro.monthly")
        let original = try #require(try await device.appStore.transaction(receipt.transactionID).payload.originalTransactionID)
        let expiry = try #require(receipt.entitlements.first { $0.id == "pro" }?.expiresAt)
        try await device.appStore.failNextRenewal(originalTransactionID: original)
        try await device.advance(seconds: Int(expiry.timeIntervalSince(device.time.now)) + 86_400)
        _ = try await manager.refresh()
        await profile.update(policy: .fromCacheOnly)
        #expect(profile.isPro)
        guard case .paymentProblem = profile.plan?.status else {
            Issue.record("expected a payment problem, got \(String(describing: profile.plan))")
            return
        }
        #expect(profile.plan?.statusText.hasPrefix("Payment problem") == true)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func everyStatusHasTextInBothLanguagesWithoutRawKeys() {
        let date = Date(timeIntervalSince1970: 1_775_000_000)
        let statuses: [SubscriptionProfileModel.Status] = [
            .renews(on: date), .ends(on: date), .paymentProblem(accessUntil: date), .expired(on: date), .expired(on: nil), .lifetime,
        ]
        for language in TallyLanguage.all {
            for status in statuses {
                let text = SubscriptionProfileModel.text(status, language: language)
                #expect(!text.hasPrefix("profile.") && !text.contains("%@"), "\(status) in \(language.code): \(text)")
            }
        }
        #expect(SubscriptionProfileModel.text(.renews(on: date), language: .english) != SubscriptionProfileModel.text(.renews(on: date), language: .ukrainian))
    }
}
