import Foundation
import Observation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// What a view that shows a model relies on: Observation reports each change of what the view
/// read (as SwiftUI's redraw on iOS 17 does), nothing else, and `onChange` is called for UIKit.
/// The same models are `ObservableObject`s on Apple systems, which Linux has no Combine to test.
@Suite(.timeLimit(.minutes(2))) struct ModelObservationTests {
    /// How many times Observation said that what was read changed.
    final class Changes: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        var count: Int { lock.withLock { value } }
        func record() { lock.withLock { value += 1 } }
    }

    /// Starts tracking what `read` reads, as a SwiftUI body does; tracking ends at the first change.
    static func track(_ read: () -> Void) -> Changes {
        let changes = Changes()
        withObservationTracking(read) { changes.record() }
        return changes
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func aPaywallIsRedrawnWhenItsItemsChangeAndNotForWhatItDidNotRead() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let paywall = PaywallModel(manager: manager, productIDs: [Kit.report("career")], language: .english)
        var buttons: [PaywallModel.ButtonState] = []
        paywall.onChange = { buttons.append($0.items.first?.button ?? .disabled) }

        let items = Self.track { _ = paywall.items }
        let language = Self.track { _ = paywall.language }
        await paywall.load()
        #expect(items.count == 1, "the list of products is redrawn once it is loaded")
        #expect(language.count == 0, "a constant is not observed")
        #expect(paywall.items.map(\.buttonTitle) == ["Buy for $4.99"])

        let during = Self.track { _ = paywall.items.first?.button }
        let error = Self.track { _ = paywall.error }
        let outcome = await paywall.purchase(Kit.report("career"))
        #expect(outcome != nil)
        #expect(during.count == 1)
        #expect(error.count == 1, "the error was cleared as the purchase began, which a view showing it must hear")
        #expect(buttons == [.idle, .purchasing, .idle], "the button spun while buying, then is ready again")
        #expect(paywall.lastPurchase?.productID == Kit.report("career"))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func theProfileTheHeaderAndTheRouterAreRedrawnWhenTheAccountChanges() async throws {
        let device = try await Device()
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        let profile = SubscriptionProfileModel(manager: manager, entitlement: "pro", language: .english)
        let access = AccessModel(manager: manager, entitlement: "pro")
        await profile.update()
        await access.update()
        #expect(!profile.isPro)
        #expect(profile.freeTitle == "Free plan")
        #expect(access.destination == .onboarding)

        let badge = Self.track { _ = profile.isPro }
        let destination = Self.track { _ = access.destination }
        _ = try await manager.buy("com.tally.pro.monthly")
        await eventually { profile.isPro && access.destination == .main }
        #expect(profile.isPro)
        #expect(access.destination == .main)
        #expect(badge.count == 1)
        #expect(destination.count == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func theCreditsHeaderIsRedrawnAtEachStepAndSaysItsUnit() async throws {
        let device = try await Device()
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database)
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: ["com.tally.photo.credits.50"])
        let credits = CreditsBalanceModel(manager: manager, currency: "credits", steps: 4, sleep: { _ in await Task.yield() })
        await credits.update()
        #expect(credits.displayedText(in: .english) == "0 credits")

        let shown = Self.track { _ = credits.displayed }
        _ = try await manager.buy("com.tally.photo.credits.50")
        await eventually { credits.displayed == 50 && !credits.isAnimating }
        #expect(shown.count == 1)
        #expect(credits.displayedText(in: .english) == "50 credits")
        #expect(credits.displayedText(in: .ukrainian) == "50 кредитів")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func theViewsLabelsSpeakEnglishAndUkrainian() async throws {
        let device = try await Device()
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        let english = PaywallModel(manager: manager, language: .english)
        let ukrainian = PaywallModel(manager: manager, language: .ukrainian)
        await english.load()
        #expect(english.sellsSubscriptions, "a paywall with a subscription shows the manage link")
        #expect([english.termsTitle, english.privacyTitle, english.manageTitle] == ["Terms of Use", "Privacy Policy", "Manage Subscription"])
        #expect(
            [ukrainian.termsTitle, ukrainian.privacyTitle, ukrainian.manageTitle] == [
                "Умови використання", "Політика конфіденційності", "Керувати підпискою",
            ])
        #expect(SubscriptionProfileModel(manager: manager, entitlement: "pro", language: .ukrainian).freeTitle == "Безкоштовний план")

        let (reports, _) = try await Device().launchOnDevice()
        let paywall = PaywallModel(manager: reports, productIDs: [Kit.report("career")], language: .english)
        await paywall.load()
        #expect(!paywall.sellsSubscriptions, "a paywall of reports has no subscription to manage")
    }

    @Test func aBalanceSaysItsUnitWithTheRightPluralForm() {
        #expect(CreditsBalanceModel.text(1, currency: "credits", language: .english) == "1 credit")
        #expect(CreditsBalanceModel.text(2, currency: "credits", language: .ukrainian) == "2 кредити")
        #expect(CreditsBalanceModel.text(21, currency: "credits", language: .ukrainian) == "21 кредит")
        #expect(CreditsBalanceModel.text(90, currency: "seconds", language: .english) == "90 seconds")
        #expect(CreditsBalanceModel.text(7, currency: "report.career", language: .english) == "7", "a currency without texts shows the number")
    }
}
