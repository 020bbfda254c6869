import Foundation
import TallyTestSupport
import TallyTesting
import Testing

extension CatalogTests {
    @Suite struct StoreKitConfigurationTests {
        // MARK: - Examples/Tally.storekit

        static let examplePrices: [String: Int64] = [
            "com.tally.zorya.report.personality": 4990,
            "com.tally.zorya.report.career": 4990,
            "com.tally.zorya.report.relationship": 4990,
            "com.tally.zorya.report.wellness": 4990,
            "com.tally.photo.credits.10": 1990,
            "com.tally.photo.credits.50": 7990,
            "com.tally.photo.credits.100": 12990,
            "com.tally.echo.3hours": 9990,
            "com.tally.pro.monthly": 4990,
            "com.tally.pro.yearly": 39990,
            "com.tally.zorya.lifetime": 19990,
            "com.tally.echo.season": 14990,
        ]

        static let exampleUkrainianNames: [String: String] = [
            "com.tally.zorya.report.personality": "Аналіз особистості",
            "com.tally.zorya.report.career": "Кар'єрні перспективи",
            "com.tally.zorya.report.relationship": "Сумісність у стосунках",
            "com.tally.zorya.report.wellness": "Здоров'я та енергія",
            "com.tally.photo.credits.10": "10 кредитів",
            "com.tally.photo.credits.50": "50 кредитів",
            "com.tally.photo.credits.100": "100 кредитів",
            "com.tally.echo.3hours": "3 години запису",
            "com.tally.pro.monthly": "Tally Pro щомісяця",
            "com.tally.pro.yearly": "Tally Pro щороку",
            "com.tally.zorya.lifetime": "Довічний доступ",
            "com.tally.echo.season": "Сезонний абонемент",
        ]

        static func example() throws -> StoreKitConfiguration {
            try StoreKitConfiguration.load(contentsOf: CatalogFixture.exampleURL)
        }

        @Test func exampleHoldsEveryProductOfTheFiveAppsAtExactPrices() throws {
            let catalog = try Self.example()
            #expect(catalog.products.count == Self.examplePrices.count)
            #expect(Dictionary(uniqueKeysWithValues: catalog.products.map { ($0.id, $0.price) }) == Self.examplePrices)
            #expect(catalog.product(id: "com.tally.photo.credits.100")?.displayPrice == "12.99")
        }

        @Test func exampleHasEveryKind() throws {
            let catalog = try Self.example()
            #expect(Set(catalog.products.map(\.kind)) == Set(StoreKitConfiguration.Product.Kind.all))
            #expect(catalog.product(id: "com.tally.zorya.report.career")?.kind == .consumable)
            #expect(catalog.product(id: "com.tally.echo.3hours")?.kind == .consumable)
            #expect(catalog.product(id: "com.tally.zorya.lifetime")?.kind == .nonConsumable)
            #expect(catalog.product(id: "com.tally.echo.season")?.kind == .nonRenewingSubscription)
            #expect(catalog.product(id: "com.tally.echo.season")?.subscription == nil)
            #expect(catalog.product(id: "com.tally.pro.yearly")?.kind == .autoRenewableSubscription)
        }

        @Test func exampleIsLocalizedInEnglishAndUkrainian() throws {
            let catalog = try Self.example()
            for product in catalog.products {
                #expect(product.localizations.map(\.locale) == ["en_US", "uk_UA"], "\(product.id)")
                #expect(product.localization(for: "uk_UA")?.displayName == Self.exampleUkrainianNames[product.id], "\(product.id)")
                #expect(product.localization(for: "uk_UA")?.description.isEmpty == false, "\(product.id)")
            }
            #expect(catalog.product(id: "com.tally.zorya.report.wellness")?.localization(for: "en_US")?.displayName == "Wellness & Energy")
            #expect(catalog.product(id: "com.tally.echo.3hours")?.localization(for: "en_US")?.displayName == "3 hours of recording")
            #expect(catalog.product(id: "com.tally.zorya.lifetime")?.localization(for: "en_US")?.displayName == "Lifetime Access")
        }

        @Test func exampleSubscriptionGroupLevelsPeriodsAndOffers() throws {
            let catalog = try Self.example()
            let group = try #require(catalog.subscriptionGroups.only)
            #expect(group.name == "Tally Pro")
            #expect(group.productIDs == ["com.tally.pro.monthly", "com.tally.pro.yearly"])

            let monthly = try #require(catalog.product(id: "com.tally.pro.monthly")?.subscription)
            #expect(monthly.groupID == group.id)
            #expect(monthly.groupName == "Tally Pro")
            #expect(monthly.level == 2)
            #expect(monthly.period == SubscriptionPeriod(value: 1, unit: .month))
            #expect(
                monthly.introductoryOffer
                    == SubscriptionOffer(
                        id: nil, paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .week), numberOfPeriods: 1,
                        displayPrice: nil, price: 0))
            #expect(
                monthly.promotionalOffers == [
                    SubscriptionOffer(
                        id: "com.tally.pro.monthly.winback50", paymentMode: .payAsYouGo, period: SubscriptionPeriod(value: 1, unit: .month),
                        numberOfPeriods: 3, displayPrice: "2.49", price: 2490)
                ])
            #expect(monthly.winBackOffers.isEmpty && monthly.offerCodes.isEmpty)

            let yearly = try #require(catalog.product(id: "com.tally.pro.yearly")?.subscription)
            #expect(yearly.level == 1)
            #expect(yearly.period.iso8601 == "P1Y")
            #expect(yearly.introductoryOffer == nil)
            #expect(yearly.promotionalOffers.isEmpty)
        }

        @Test func exampleSettingsAreRealTimeInTheUnitedStates() throws {
            let settings = try Self.example().settings
            #expect(settings == StoreKitConfiguration.Settings(locale: "en_US", storefront: "USA", timeRate: .realTime))
            #expect(settings.currency == "USD")
        }

        @Test func exampleIsWrittenAsXcodeWritesVersionFour() throws {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: CatalogFixture.exampleURL)) as? [String: Any])
            let version = try #require(object["version"] as? [String: Int])
            #expect(version == ["major": 4, "minor": 0])
            let settings = try #require(object["settings"] as? [String: Any])
            #expect(settings["_timeRate"] as? Int == 0)
            #expect(settings["_storefront"] as? String == "USA")
            #expect(settings["_locale"] as? String == "en_US")
            let text = try String(contentsOf: CatalogFixture.exampleURL, encoding: .utf8)
            #expect(text.contains("\"productID\" : \"com.tally.pro.monthly\""), "Xcode's `key : value` spacing")
        }

        // MARK: - Xcode's own file

        @Test(.enabled(if: CatalogFixture.revenueCatURL != nil, "../shared/storekit is absent"))
        func xcodeFileProductsComeOutInXcodeKeyOrder() throws {
            let catalog = try StoreKitConfiguration.load(contentsOf: try #require(CatalogFixture.revenueCatURL))
            #expect(catalog.identifier == "B495CDA2")
            #expect(
                catalog.products.map(\.id) == [
                    "com.revenuecat.non_renewable", "lifetime", "com.revenuecat.consumable",
                    "com.revenuecat.monthly_4.99.1_week_intro", "com.revenuecat.annual_39.99.2_week_intro",
                    "com.revenuecat.annual_with_commitment", "com.revenuecat.annual_39.99_no_trial",
                ])
            #expect(catalog.products.map(\.price) == [1690, 199_990, 1490, 4990, 39_990, 11_880, 39_990])
            #expect(
                catalog.products.map(\.kind) == [
                    .nonRenewingSubscription, .nonConsumable, .consumable,
                    .autoRenewableSubscription, .autoRenewableSubscription, .autoRenewableSubscription, .autoRenewableSubscription,
                ])
        }

        @Test(.enabled(if: CatalogFixture.revenueCatURL != nil, "../shared/storekit is absent"))
        func xcodeFileNonSubscriptionProducts() throws {
            let catalog = try StoreKitConfiguration.load(contentsOf: try #require(CatalogFixture.revenueCatURL))
            let nonRenewing = try #require(catalog.product(id: "com.revenuecat.non_renewable"))
            #expect(nonRenewing.referenceName == "Non Renewable")
            #expect(nonRenewing.displayPrice == "1.69")
            #expect(nonRenewing.subscription == nil)
            #expect(nonRenewing.familyShareable == false)
            #expect(nonRenewing.localization(for: "en_US")?.displayName == "Non Renewable Subscription")
            let lifetime = try #require(catalog.product(id: "lifetime"))
            #expect(lifetime.familyShareable)
            #expect(lifetime.localization(for: "uk_UA")?.displayName == "Lifetime subscription", "falls back to the only localization")
        }

        @Test(.enabled(if: CatalogFixture.revenueCatURL != nil, "../shared/storekit is absent"))
        func xcodeFileGroupsAndOffers() throws {
            let catalog = try StoreKitConfiguration.load(contentsOf: try #require(CatalogFixture.revenueCatURL))
            #expect(
                catalog.subscriptionGroups == [
                    SubscriptionGroup(
                        id: "7096FF06", name: "subscription_group_1",
                        productIDs: [
                            "com.revenuecat.monthly_4.99.1_week_intro", "com.revenuecat.annual_39.99.2_week_intro",
                            "com.revenuecat.annual_with_commitment",
                        ]),
                    SubscriptionGroup(id: "4BB746BD", name: "subscription_group_2", productIDs: ["com.revenuecat.annual_39.99_no_trial"]),
                ])
            let monthly = try #require(catalog.product(id: "com.revenuecat.monthly_4.99.1_week_intro")?.subscription)
            #expect(monthly.groupID == "7096FF06")
            #expect(monthly.level == 1)
            #expect(monthly.period.iso8601 == "P1M")
            #expect(
                monthly.introductoryOffer
                    == SubscriptionOffer(
                        id: nil, paymentMode: .freeTrial, period: SubscriptionPeriod(value: 3, unit: .month), numberOfPeriods: 1,
                        displayPrice: nil, price: 0))
            #expect(
                monthly.promotionalOffers == [
                    SubscriptionOffer(
                        id: "com.revenuecat.monthly_4.99.1_week_intro.year_discount", paymentMode: .payUpFront,
                        period: SubscriptionPeriod(value: 1, unit: .year), numberOfPeriods: 1, displayPrice: "40.99", price: 40_990),
                    SubscriptionOffer(
                        id: "com.revenuecat.monthly_4.99.1_week_intro.pay_as_you_go", paymentMode: .payAsYouGo,
                        period: SubscriptionPeriod(value: 1, unit: .month), numberOfPeriods: 2, displayPrice: "20.15", price: 20_150),
                ])
            let annual = try #require(catalog.product(id: "com.revenuecat.annual_39.99.2_week_intro")?.subscription)
            #expect(annual.introductoryOffer?.period == SubscriptionPeriod(value: 2, unit: .week))
            #expect(annual.period.unit == .year)
            let noTrial = try #require(catalog.product(id: "com.revenuecat.annual_39.99_no_trial")?.subscription)
            #expect(noTrial.groupID == "4BB746BD")
            #expect(noTrial.groupName == "subscription_group_2")
            #expect(noTrial.introductoryOffer == nil, "an empty introductoryOffers array is no offer")
        }

        @Test(.enabled(if: CatalogFixture.revenueCatURL != nil, "../shared/storekit is absent"))
        func xcodeFileSettings() throws {
            let catalog = try StoreKitConfiguration.load(contentsOf: try #require(CatalogFixture.revenueCatURL))
            #expect(catalog.settings == StoreKitConfiguration.Settings())
            #expect(catalog.settings.storefront == "USA")
            #expect(catalog.settings.locale == "en_US")
            #expect(catalog.settings.timeRate == .realTime)
            #expect(catalog.settings.storeKitErrors.isEmpty)
        }

        // MARK: - Reading rules

        @Test func unknownKeysAreIgnoredAtEveryLevel() throws {
            let base = try StoreKitConfiguration(json: CatalogFixture.data(CatalogFixture.document()))
            let future: [String: Any] = ["nested": [1, 2, ["deep": true]], "flag": NSNull()]
            let extended = try StoreKitConfiguration(
                json: CatalogFixture.adding(
                    "_futureXcodeKey", future,
                    at: [
                        "", "settings", "products[0]", "products[0].localizations[0]", "nonRenewingSubscriptions[0]",
                        "subscriptionGroups[0]", "subscriptionGroups[0].subscriptions[0]",
                        "subscriptionGroups[0].subscriptions[0].introductoryOffer",
                        "subscriptionGroups[0].subscriptions[0].adHocOffers[0]", "version",
                    ]))
            #expect(extended == base)
            #expect(extended.products.count == 5)
        }

        @Test func nullIntroductoryOfferMeansNone() throws {
            let catalog = try CatalogFixture.parse("subscriptionGroups[0].subscriptions[0].introductoryOffer", NSNull())
            #expect(catalog.product(id: "s.monthly")?.subscription?.introductoryOffer == nil)
        }

        @Test func introductoryOffersArrayIsReadWhenTheSingleOfferIsAbsent() throws {
            var root: [String: Any] = CatalogFixture.document()
            var groups = root["subscriptionGroups"] as! [[String: Any]]
            var subscriptions = groups[0]["subscriptions"] as! [[String: Any]]
            subscriptions[1]["introductoryOffers"] = [["paymentMode": "payUpFront", "displayPrice": "9.99", "subscriptionPeriod": "P3M"]]
            groups[0]["subscriptions"] = subscriptions
            root["subscriptionGroups"] = groups
            let catalog = try StoreKitConfiguration(json: CatalogFixture.data(root))
            #expect(
                catalog.product(id: "s.yearly")?.subscription?.introductoryOffer
                    == SubscriptionOffer(
                        id: nil, paymentMode: .payUpFront, period: SubscriptionPeriod(value: 3, unit: .month), numberOfPeriods: 1,
                        displayPrice: "9.99", price: 9990))
        }

        @Test func missingSubscriptionGroupIDDefaultsToTheEnclosingGroup() throws {
            let catalog = try CatalogFixture.parse("subscriptionGroups[0].subscriptions[1].subscriptionGroupID", nil)
            #expect(catalog.product(id: "s.yearly")?.subscription?.groupID == "G1")
        }

        @Test func emptyDocumentHasNoProductsAndDefaultSettings() throws {
            let catalog = try StoreKitConfiguration(json: Data("{}".utf8))
            #expect(catalog.products.isEmpty)
            #expect(catalog.subscriptionGroups.isEmpty)
            #expect(catalog.identifier == nil)
            #expect(catalog.settings == StoreKitConfiguration.Settings())
        }

        @Test(
            arguments: [
                ("4.99", 4990), ("1200", 1_200_000), ("0.5", 500), ("6.00", 6000), ("0", 0), ("0.001", 1),
                ("19.999", 19_999), ("007.10", 7100), ("999999999999999.999", 999_999_999_999_999_999),
            ] as [(String, Int64)])
        func pricesAreExactMilliunits(text: String, milliunits: Int64) throws {
            let catalog = try CatalogFixture.parse("products[0].displayPrice", text)
            #expect(catalog.product(id: "c.one")?.price == milliunits)
            #expect(catalog.product(id: "c.one")?.displayPrice == text)
        }

        @Test func freeTrialCostsNothingWhateverPriceItShows() throws {
            let catalog = try CatalogFixture.parse("subscriptionGroups[0].subscriptions[0].introductoryOffer.displayPrice", "0.00")
            let offer = try #require(catalog.product(id: "s.monthly")?.subscription?.introductoryOffer)
            #expect(offer.price == 0)
            #expect(offer.displayPrice == "0.00")
        }

        @Test func productLookupIsByIdentifier() throws {
            let catalog = try StoreKitConfiguration(json: CatalogFixture.data(CatalogFixture.document()))
            #expect(catalog.product(id: "nc.two")?.referenceName == "Two")
            #expect(catalog.product(id: "missing") == nil)
            #expect(catalog.subscriptionGroup(id: "G2")?.name == "Group Two")
        }
    }
}

fileprivate extension Collection {
    /// The single element, or `nil` when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
