import Foundation
import TallyTesting
import Testing

extension CatalogTests {
    @Suite struct StoreSettingsTests {
        @Test(arguments: [
            ("USA", "USD"), ("UKR", "UAH"), ("GBR", "GBP"), ("DEU", "EUR"), ("FRA", "EUR"), ("ITA", "EUR"), ("ESP", "EUR"),
            ("NLD", "EUR"), ("IRL", "EUR"), ("HRV", "EUR"), ("FIN", "EUR"), ("AUT", "EUR"), ("JPN", "JPY"), ("CAN", "CAD"),
            ("AUS", "AUD"), ("CHE", "CHF"), ("POL", "PLN"), ("BRA", "USD"), ("SWE", "USD"), ("XYZ", "USD"), ("ukr", "UAH"),
        ])
        func currencyFollowsTheStorefront(storefront: String, currency: String) {
            #expect(StoreKitConfiguration.Settings(storefront: storefront).currency == currency)
            #expect(StoreKitConfiguration.Settings.currency(forStorefront: storefront) == currency)
        }

        @Test func settingsKeysAreRead() throws {
            let settings = try Self.settings([
                "_askToBuyEnabled": true, "_billingGracePeriodEnabled": true, "_failTransactionsEnabled": true,
                "_disableDialogs": true, "_locale": "uk_UA", "_storefront": "UKR", "_timeRate": 1003,
            ])
            #expect(
                settings
                    == StoreKitConfiguration.Settings(
                        askToBuyEnabled: true, billingGracePeriodEnabled: true, billingIssuesEnabled: false, failTransactionsEnabled: true,
                        interruptedPurchasesEnabled: false, disableDialogs: true, locale: "uk_UA", storefront: "UKR",
                        timeRate: .oneRenewalEveryThirtySeconds))
            #expect(settings.currency == "UAH")
        }

        @Test(arguments: ["_renewalBillingIssuesEnabled", "_billingIssuesEnabled"])
        func eitherBillingIssueKeyMakesRenewalsFail(key: String) throws {
            #expect(try Self.settings([key: true]).billingIssuesEnabled)
            #expect(try Self.settings([key: false]).billingIssuesEnabled == false)
        }

        @Test func interruptedPurchasesAreOffUnlessTheFileSaysSo() throws {
            #expect(try Self.settings([:]).interruptedPurchasesEnabled == false)
            #expect(try Self.settings(["_interruptedPurchasesEnabled": true]).interruptedPurchasesEnabled)
        }

        @Test func storeKitErrorsKeepXcodesShapeAndRawChoices() throws {
            let settings = try Self.settings([
                "_storeKitErrors": [
                    ["current": NSNull(), "enabled": false, "name": "Load Products"],
                    ["current": ["index": 2, "kind": "networkError"], "enabled": true, "name": "Purchase"],
                    ["enabled": true, "name": "Verification", "current": "invalidSignature"],
                ] as [Any]
            ])
            #expect(
                settings.storeKitErrors == [
                    StoreKitConfiguration.ErrorSetting(api: StoreKitConfiguration.ErrorSetting.loadProducts, enabled: false, rawCurrent: nil),
                    StoreKitConfiguration.ErrorSetting(api: "Purchase", enabled: true, rawCurrent: "{\"index\":2,\"kind\":\"networkError\"}"),
                    StoreKitConfiguration.ErrorSetting(api: "Verification", enabled: true, rawCurrent: "\"invalidSignature\""),
                ])
        }

        @Test func storeKitErrorWithoutNameIsRejected() throws {
            let error = try #require(try CatalogFixture.error("settings._storeKitErrors", [["enabled": true]]))
            #expect(error.code == .missingValue)
            #expect(error.path == "settings._storeKitErrors[0].name")
        }

        static func settings(_ values: [String: Any]) throws -> StoreKitConfiguration.Settings {
            try StoreKitConfiguration(json: CatalogFixture.data(["settings": values])).settings
        }
    }
}
