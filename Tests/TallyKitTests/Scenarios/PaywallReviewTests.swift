import Foundation
import TallyCore
import TallyKitTesting
import TallyTesting
import Testing

@testable import TallyKit

/// What App Review checks on a subscription paywall (guideline 3.1.2), in English and
/// Ukrainian: each subscription's price with its billing period and that it renews, restore
/// that says what it found, and an error alert whose "Try Again" really tries again.
@Suite(.timeLimit(.minutes(2))) struct PaywallReviewTests {
    static let languages: [TallyLanguage] = [.english, .ukrainian]

    /// One period as a reader expects it after the price, written out here rather than taken
    /// from the string tables under test.
    static func unit(_ period: SubscriptionPeriod, _ language: TallyLanguage) -> String? {
        guard period.value == 1 else { return nil }
        let words: [SubscriptionPeriod.Unit: String] =
            language == .ukrainian
            ? [.day: "день", .week: "тиждень", .month: "місяць", .year: "рік"] : [.day: "day", .week: "week", .month: "month", .year: "year"]
        return words[period.unit]
    }

    static func renews(_ language: TallyLanguage) -> String {
        language == .ukrainian ? "поновлюється автоматично до скасування" : "renews automatically until cancelled"
    }

    /// Everything an item shows.
    static func visibleTexts(_ item: PaywallModel.Item) -> [String] {
        [item.title, item.description] + item.benefits + [item.billingText, item.introductoryOffer, item.aiExplanation, item.disabledReason].compactMap { $0 }
            + [item.buttonTitle]
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func everyAutoRenewableItemStatesItsPricePerPeriodAndThatItRenewsInBothLanguages() async throws {
        let subscriptions = Kit.storeCatalog.products.filter { $0.kind == .autoRenewableSubscription }
        #expect(Set(subscriptions.map(\.id)) == ["com.tally.pro.monthly", "com.tally.pro.yearly"])
        let device = try await Device()
        let database = try await device.database()
        let manager = try await device.launch(
            delivery: try await device.onDeviceLedger(database), database: database, productIDs: subscriptions.map(\.id))

        // Before the trial is used (the monthly plan offers one) and after (no offer applies).
        for moment in ["before", "after"] {
            if moment == "after" { _ = try await manager.buy("com.tally.pro.monthly") }
            for language in Self.languages {
                let paywall = await PaywallModel(manager: manager, language: language)
                await paywall.load()
                let items = await paywall.items
                #expect(items.map(\.id) == subscriptions.map(\.id))
                for product in subscriptions {
                    let item = try #require(items.first { $0.id == product.id })
                    let period = try #require(product.subscription?.period)
                    let unit = try #require(Self.unit(period, language), "no words for \(period) in this test")
                    let price = "$" + product.displayPrice
                    #expect(item.displayPrice == price)
                    let texts = Self.visibleTexts(item)
                    #expect(texts.contains { $0.contains("\(price) / \(unit)") }, "\(moment), \(language): \(texts)")
                    #expect(texts.contains { $0.contains(Self.renews(language)) }, "\(moment), \(language): \(texts)")
                    #expect(item.billingText == "\(price) / \(unit), \(Self.renews(language))")
                    #expect(!item.title.isEmpty)
                    if moment == "before" {
                        #expect(item.buttonTitle == (language == .ukrainian ? "Підписатися" : "Subscribe"))
                        #expect(!item.buttonTitle.contains(price))
                    }
                }
                #expect(await paywall.termsTitle == (language == .ukrainian ? "Умови використання" : "Terms of Use"))
                #expect(await paywall.privacyTitle == (language == .ukrainian ? "Політика конфіденційності" : "Privacy Policy"))
            }
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func billingPeriodsOfAnyLengthReadWellInBothLanguages() async throws {
        func product(_ value: Int, _ unit: SubscriptionTerms.Period.Unit, kind: ProductKind = .autoRenewable) -> ProductDetails {
            ProductDetails(
                id: "p", kind: kind, displayName: "Pro", description: "", displayPrice: "$9.99", price: 9_990, currencyCode: "USD",
                subscription: kind == .autoRenewable ? SubscriptionTerms(period: .init(value: value, unit: unit), groupID: "g") : nil)
        }
        let cases: [(ProductDetails, String, String)] = [
            (product(1, .week), "$9.99 / week", "$9.99 / тиждень"),
            (product(2, .week), "$9.99 / 2 weeks", "$9.99 / 2 тижні"),
            (product(1, .month), "$9.99 / month", "$9.99 / місяць"),
            (product(3, .month), "$9.99 / 3 months", "$9.99 / 3 місяці"),
            (product(6, .month), "$9.99 / 6 months", "$9.99 / 6 місяців"),
            (product(1, .year), "$9.99 / year", "$9.99 / рік"),
            (product(5, .day), "$9.99 / 5 days", "$9.99 / 5 днів"),
        ]
        for (details, english, ukrainian) in cases {
            #expect(await PaywallModel.billingText(details, durationDays: nil, language: .english) == english + ", renews automatically until cancelled")
            #expect(await PaywallModel.billingText(details, durationDays: nil, language: .ukrainian) == ukrainian + ", поновлюється автоматично до скасування")
        }
        let pass = product(0, .day, kind: .nonRenewing)
        #expect(await PaywallModel.billingText(pass, durationDays: 21, language: .english) == "$9.99 for 21 days, does not renew")
        #expect(await PaywallModel.billingText(pass, durationDays: 21, language: .ukrainian) == "$9.99 за 21 день, без автоматичного поновлення")
        #expect(await PaywallModel.billingText(pass, durationDays: nil, language: .english) == nil)
        #expect(await PaywallModel.billingText(product(0, .day, kind: .consumable), durationDays: nil, language: .english) == nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aNonRenewingSeasonPassShowsItsLength() async throws {
        let device = try await Device()
        let database = try await device.database()
        let manager = try await device.launch(
            delivery: try await device.onDeviceLedger(database), database: database, productIDs: ["com.tally.echo.season"])
        let english = await PaywallModel(manager: manager, language: .english)
        await english.load()
        // Examples/tally.json gives the season pass 90 days.
        #expect(await english.items.first?.billingText == "$14.99 for 90 days, does not renew")
        #expect(await english.items.first?.buttonTitle == "Buy for $14.99")
        let ukrainian = await PaywallModel(manager: manager, language: .ukrainian)
        await ukrainian.load()
        #expect(await ukrainian.items.first?.billingText == "$14.99 за 90 днів, без автоматичного поновлення")
    }

    // MARK: Restore

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func restoreWithNothingToRestoreSaysSo() async throws {
        let device = try await Device()
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        let paywall = await PaywallModel(manager: manager, language: .english)
        await paywall.load()
        #expect(await paywall.restoreMessage == nil)
        await paywall.restore()
        #expect(await paywall.error == nil)
        #expect(await paywall.restoreOutcome == .nothingToRestore)
        #expect(await paywall.restoreMessage == "Nothing to restore")
        let ukrainian = await PaywallModel(manager: manager, language: .ukrainian)
        await ukrainian.restore()
        #expect(await ukrainian.restoreMessage == "Немає покупок для відновлення")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func restoreWithASubscriptionSaysRestoredAndShowsItOwned() async throws {
        let device = try await Device()
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        _ = try await manager.buy("com.tally.pro.yearly")
        await manager.stop()
        device.reinstall()
        let (reinstalled, _) = try await SubscriptionOnDeviceTests.launch(device)
        for language in Self.languages {
            let paywall = await PaywallModel(manager: reinstalled, productIDs: ["com.tally.pro.yearly"], language: language)
            await paywall.load()
            await paywall.restore()
            #expect(await paywall.error == nil)
            #expect(await paywall.restoreOutcome == .restored)
            #expect(await paywall.restoreMessage == (language == .ukrainian ? "Покупки відновлено" : "Purchases restored"))
            #expect(await paywall.items.first?.button == .disabled)
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func tryAgainAfterAFailedRestoreRestoresAgain() async throws {
        let device = try await Device()
        let (manager, _) = try await SubscriptionOnDeviceTests.launch(device)
        _ = try await manager.buy("com.tally.pro.monthly")
        let paywall = await PaywallModel(manager: manager, language: .english)
        await paywall.load()
        await device.store.setReachable(false)
        await paywall.restore()
        #expect(await paywall.errorCode == .restoreFailed)
        #expect(await paywall.error?.action == .tryAgain)
        #expect(await paywall.restoreMessage == nil)

        await device.store.setReachable(true)
        // SwiftUI hides the alert, then runs its action.
        await paywall.dismissError()
        await paywall.tryAgain()
        #expect(await paywall.error == nil)
        #expect(await paywall.restoreMessage == "Purchases restored")
    }

    // MARK: Try Again

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func tryAgainAfterTheAlertIsHiddenDeliversThePaymentAgainExactlyOnce() async throws {
        let device = try await Device()
        let database = try await device.database()
        let delivery = CountingDelivery(base: try await device.onDeviceLedger(database))
        let manager = try await device.launch(delivery: delivery, database: database, productIDs: [Kit.report("career")])
        let paywall = await PaywallModel(manager: manager, language: .english)
        await paywall.load()
        await device.store.nextPurchase(.unverified)
        #expect(await paywall.purchase(Kit.report("career")) == nil)
        #expect(await paywall.errorCode == .verificationFailed)
        #expect(await paywall.error?.action == .tryAgain)
        let paid = await delivery.counter.deliveries
        #expect(paid.count == 1)

        // The order SwiftUI may use: the alert's binding hides it, then the button's task runs.
        await paywall.dismissError()
        #expect(await paywall.error == nil)
        await paywall.tryAgain()
        #expect(await delivery.counter.deliveries == paid + paid, "delivered again, once, the same transaction")
        // Refused again (the signature is still bad): said again; never a second payment.
        #expect(await paywall.errorCode == .verificationFailed)
        #expect(try await device.appStore.history(includingFinishedConsumables: true).count == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anErrorThatTryingAgainCannotFixOffersNoTryAgain() async throws {
        let device = try await Device()
        let database = try await device.database()
        let delivery = CountingDelivery(base: try await device.onDeviceLedger(database))
        let manager = try await device.launch(delivery: delivery, database: database, productIDs: [Kit.report("career")])
        for language in Self.languages {
            let paywall = await PaywallModel(manager: manager, language: language)
            await paywall.load()
            // The store failed mid-purchase: whether it charged is unknown, so buying again is the
            // customer's own tap, and nothing was paid to deliver again.
            await device.store.nextPurchase(.failure(.networkError))
            #expect(await paywall.purchase(Kit.report("career")) == nil)
            #expect(await paywall.errorCode == .networkError)
            #expect(await paywall.error?.action == .ok)
            #expect(await paywall.error?.actionTitle == "OK")
            await paywall.dismissError()
            await paywall.tryAgain()
            #expect(await paywall.error == nil)
        }
        #expect(await delivery.counter.deliveries.isEmpty)
        #expect(try await device.appStore.history(includingFinishedConsumables: true).isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func tryAgainAfterAPurchaseRefusedOfflineBuysOnceOnline() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let paywall = await PaywallModel(manager: manager, productIDs: [Kit.report("career")], language: .english)
        await paywall.load()
        device.connectivity.set(online: false)
        #expect(await paywall.purchase(Kit.report("career")) == nil)
        #expect(await paywall.errorCode == .networkUnavailable)
        #expect(await paywall.error?.actionTitle == "Try Again")

        device.connectivity.set(online: true)
        await paywall.dismissError()
        await paywall.tryAgain()
        #expect(await paywall.error == nil)
        #expect(await paywall.lastPurchase?.granted == [Amount(currency: "report.career", amount: 1)])
        // Hidden, with nothing left to try: a second call does nothing.
        await paywall.tryAgain()
        #expect(try await manager.available("report.career") == 1)
        #expect(try await device.appStore.history(includingFinishedConsumables: true).count == 1)
    }

    /// The scene a paywall purchase is given (visionOS needs one) reaches the store, and "Try
    /// Again" after an offline refusal buys in the same scene.
    @Test func thePaywallBuysInTheSceneItIsGivenAndTriesAgainThere() async throws {
        let device = try await Device()
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database)
        let store = GatedStore(base: device.store)
        let manager = try await PurchaseManager(
            store: store, delivery: ledger, database: database,
            configuration: Device.configuration(productIDs: [Kit.report("career")]) { _ in }, connectivity: device.connectivity,
            analytics: device.analytics, clock: device.clock, now: { device.now }, uptime: { device.uptime })
        await manager.start()
        let paywall = await PaywallModel(manager: manager, productIDs: [Kit.report("career")], language: .english)
        await paywall.load()

        device.connectivity.set(online: false)
        #expect(await paywall.purchase(Kit.report("career"), confirmIn: PurchaseScene()) == nil)
        #expect(await store.purchases.options.isEmpty)
        device.connectivity.set(online: true)
        await paywall.tryAgain()
        #expect(await store.purchases.options.map { $0.scene != nil } == [true])
        #expect(try await manager.available("report.career") == 1)

        await paywall.purchase(Kit.report("career"))
        #expect(await store.purchases.options.map { $0.scene != nil } == [true, false])
    }
}
