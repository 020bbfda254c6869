import Foundation
import TallyTesting
import Testing

/// Each rule of the reader, broken once in an otherwise valid file, and the exact place named.
extension CatalogTests {
    @Suite struct StoreKitConfigurationErrorTests {
        @Test func fixtureItselfIsValid() throws {
            let catalog = try StoreKitConfiguration(json: CatalogFixture.data(CatalogFixture.document()))
            #expect(catalog.products.map(\.id) == ["nr.season", "c.one", "nc.two", "s.monthly", "s.yearly"])
        }

        @Test func bytesThatAreNotJSONAreRejectedForTheWholeDocument() throws {
            let error = try #require(CatalogFixture.error(of: Data("{\"products\": [".utf8)))
            #expect(error.code == .invalidJSON)
            #expect(error.path == "")
        }

        @Test func documentThatIsNotAnObjectIsRejected() throws {
            let error = try #require(CatalogFixture.error(of: Data("[{\"productID\": \"a\"}]".utf8)))
            #expect(error.code == .invalidJSON)
            #expect(error.path == "")
            #expect(error.reason.contains("an array"))
        }

        @Test func productWithoutProductIDIsRejected() throws {
            let error = try #require(try CatalogFixture.error("products[1].productID", nil))
            #expect(error.code == .missingValue)
            #expect(error.path == "products[1].productID")
        }

        @Test func emptyProductIDIsRejected() throws {
            let error = try #require(try CatalogFixture.error("nonRenewingSubscriptions[0].productID", ""))
            #expect(error.code == .invalidValue)
            #expect(error.path == "nonRenewingSubscriptions[0].productID")
        }

        @Test func subscriptionWithoutTypeIsRejected() throws {
            let error = try #require(try CatalogFixture.error("subscriptionGroups[0].subscriptions[1].type", nil))
            #expect(error.code == .missingValue)
            #expect(error.path == "subscriptionGroups[0].subscriptions[1].type")
        }

        @Test(arguments: ["Subscription", "consumable", "AutoRenewable", ""])
        func unknownProductTypeIsRejected(type: String) throws {
            let error = try #require(try CatalogFixture.error("nonRenewingSubscriptions[0].type", type))
            #expect(error.code == .invalidValue)
            #expect(error.path == "nonRenewingSubscriptions[0].type")
        }

        @Test func typeOutsideItsSectionIsRejected() throws {
            let error = try #require(try CatalogFixture.error("products[0].type", "RecurringSubscription"))
            #expect(error.code == .invalidValue)
            #expect(error.path == "products[0].type")
        }

        @Test(arguments: ["4.9999", "4,99", "-1.00", "1e3", "", ".5", "5.", "$4.99", " 4.99", "4.99 ", "1.2.3", "١٢", "1234567890123456"])
        func priceThatIsNotADecimalWithAtMostThreeFractionalDigitsIsRejected(price: String) throws {
            let error = try #require(try CatalogFixture.error("products[0].displayPrice", price))
            #expect(error.code == .invalidValue)
            #expect(error.path == "products[0].displayPrice")
        }

        @Test func priceWrittenAsANumberIsRejected() throws {
            let error = try #require(try CatalogFixture.error("products[1].displayPrice", 9.99))
            #expect(error.code == .wrongType)
            #expect(error.path == "products[1].displayPrice")
        }

        @Test func productWithoutPriceIsRejected() throws {
            let error = try #require(try CatalogFixture.error("subscriptionGroups[0].subscriptions[0].displayPrice", nil))
            #expect(error.code == .missingValue)
            #expect(error.path == "subscriptionGroups[0].subscriptions[0].displayPrice")
        }

        @Test(arguments: ["P1Q", "1M", "P0M", "P1M2D", "PT1H", "p1m", "monthly"])
        func badRenewalPeriodIsRejected(period: String) throws {
            let error = try #require(try CatalogFixture.error("subscriptionGroups[0].subscriptions[1].recurringSubscriptionPeriod", period))
            #expect(error.code == .invalidValue)
            #expect(error.path == "subscriptionGroups[0].subscriptions[1].recurringSubscriptionPeriod")
        }

        @Test func badOfferPeriodIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].introductoryOffer.subscriptionPeriod"
            let error = try #require(try CatalogFixture.error(path, "1 week"))
            #expect(error.code == .invalidValue)
            #expect(error.path == path)
        }

        @Test func subscriptionWithoutPeriodIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod"
            let error = try #require(try CatalogFixture.error(path, nil))
            #expect(error.code == .missingValue)
            #expect(error.path == path)
        }

        @Test func subscriptionGroupIDThatNamesNoGroupIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[1].subscriptionGroupID"
            let error = try #require(try CatalogFixture.error(path, "NOPE"))
            #expect(error.code == .unknownGroup)
            #expect(error.path == path)
            #expect(error.reason == "names no group: \"NOPE\"")
        }

        @Test func subscriptionGroupIDThatNamesAnotherGroupIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].subscriptionGroupID"
            let error = try #require(try CatalogFixture.error(path, "G2"))
            #expect(error.code == .unknownGroup)
            #expect(error.path == path)
            #expect(error.reason.contains("is in group \"G1\""))
        }

        @Test func groupWithoutIDIsRejected() throws {
            let error = try #require(try CatalogFixture.error("subscriptionGroups[1].id", nil))
            #expect(error.code == .missingValue)
            #expect(error.path == "subscriptionGroups[1].id")
        }

        @Test func duplicateProductIDIsRejectedAtTheSecondOccurrence() throws {
            let error = try #require(try CatalogFixture.error("subscriptionGroups[0].subscriptions[1].productID", "c.one"))
            #expect(error.code == .duplicateProduct)
            #expect(error.path == "subscriptionGroups[0].subscriptions[1].productID")
            #expect(error.reason.contains("products[0]"))
        }

        @Test(arguments: [0, -1])
        func levelBelowOneIsRejected(level: Int) throws {
            let path = "subscriptionGroups[0].subscriptions[0].groupNumber"
            let error = try #require(try CatalogFixture.error(path, level))
            #expect(error.code == .invalidValue)
            #expect(error.path == path)
        }

        @Test func levelWrittenAsTextIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[1].groupNumber"
            let error = try #require(try CatalogFixture.error(path, "1"))
            #expect(error.code == .wrongType)
            #expect(error.path == path)
        }

        @Test func unknownPaymentModeIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].adHocOffers[0].paymentMode"
            let error = try #require(try CatalogFixture.error(path, "halfPrice"))
            #expect(error.code == .invalidValue)
            #expect(error.path == path)
        }

        @Test func promotionalOfferWithoutOfferIDIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].adHocOffers[0].offerID"
            let error = try #require(try CatalogFixture.error(path, nil))
            #expect(error.code == .missingValue)
            #expect(error.path == path)
        }

        @Test func paidOfferWithoutPriceIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].adHocOffers[0].displayPrice"
            let error = try #require(try CatalogFixture.error(path, nil))
            #expect(error.code == .missingValue)
            #expect(error.path == path)
        }

        @Test func offerPriceWithTooManyDecimalsIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].adHocOffers[0].displayPrice"
            let error = try #require(try CatalogFixture.error(path, "2.4999"))
            #expect(error.code == .invalidValue)
            #expect(error.path == path)
        }

        @Test func offerOfZeroPeriodsIsRejected() throws {
            let path = "subscriptionGroups[0].subscriptions[0].introductoryOffer.numberOfPeriods"
            let error = try #require(try CatalogFixture.error(path, 0))
            #expect(error.code == .invalidValue)
            #expect(error.path == path)
        }

        @Test(arguments: [7, 14, 2000, -1])
        func unknownTimeRateIsRejected(rate: Int) throws {
            let error = try #require(try CatalogFixture.error("settings._timeRate", rate))
            #expect(error.code == .invalidValue)
            #expect(error.path == "settings._timeRate")
        }

        @Test func settingOfTheWrongTypeIsRejected() throws {
            let error = try #require(try CatalogFixture.error("settings._askToBuyEnabled", "yes"))
            #expect(error.code == .wrongType)
            #expect(error.path == "settings._askToBuyEnabled")
        }

        @Test func numberWhereABooleanBelongsIsRejected() throws {
            let error = try #require(try CatalogFixture.error("products[1].familyShareable", 1))
            #expect(error.code == .wrongType)
            #expect(error.path == "products[1].familyShareable")
        }

        @Test func localizationWithoutLocaleIsRejected() throws {
            let path = "products[0].localizations[0].locale"
            let error = try #require(try CatalogFixture.error(path, nil))
            #expect(error.code == .missingValue)
            #expect(error.path == path)
        }

        @Test func sectionThatIsNotAnArrayIsRejected() throws {
            let error = try #require(try CatalogFixture.error("products", ["productID": "x"]))
            #expect(error.code == .wrongType)
            #expect(error.path == "products")
        }

        @Test func missingFileIsUnreadable() throws {
            let url = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).storekit")
            #expect {
                _ = try StoreKitConfiguration.load(contentsOf: url)
            } throws: { error in
                (error as? StoreKitConfigurationError)?.code == .unreadable
            }
        }

        @Test func descriptionNamesThePathThenTheReason() {
            let error = StoreKitConfigurationError(.invalidValue, path: "products[0].type", reason: "unknown product type \"X\"")
            #expect(error.description == "products[0].type: unknown product type \"X\"")
            #expect(StoreKitConfigurationError(.invalidJSON, path: "", reason: "not JSON").description == "not JSON")
        }
    }
}
