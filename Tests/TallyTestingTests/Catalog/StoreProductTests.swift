import TallyTesting
import Testing

extension CatalogTests {
    @Suite struct StoreProductTests {
        static let product = StoreKitConfiguration.Product(
            id: "p", referenceName: "P", kind: .consumable, displayPrice: "1.00", price: 1000,
            localizations: [
                StoreKitConfiguration.Localization(locale: "en_US", displayName: "English", description: ""),
                StoreKitConfiguration.Localization(locale: "uk_UA", displayName: "Українська", description: ""),
                StoreKitConfiguration.Localization(locale: "en_GB", displayName: "British", description: ""),
            ])

        @Test(arguments: [
            ("uk_UA", "Українська"), ("uk-UA", "Українська"), ("UK_ua", "Українська"), ("uk", "Українська"), ("uk_RU", "Українська"),
            ("en_GB", "British"), ("en_AU", "English"), ("fr_FR", "English"), ("", "English"),
        ])
        func localizationIsExactThenSameLanguageThenFirst(locale: String, name: String) {
            #expect(Self.product.localization(for: locale)?.displayName == name)
        }

        @Test func productWithoutLocalizationsHasNone() {
            var bare = Self.product
            bare.localizations = []
            #expect(bare.localization(for: "en_US") == nil)
        }

        @Test func kindsKeepXcodesTypeNames() {
            #expect(
                StoreKitConfiguration.Product.Kind.all.map(\.rawValue) == ["Consumable", "NonConsumable", "NonRenewingSubscription", "RecurringSubscription"])
            #expect(StoreKitConfiguration.Product.Kind(rawValue: "RecurringSubscription") == .autoRenewableSubscription)
            #expect(StoreKitConfiguration.Product.Kind(rawValue: "AutoRenewable") == nil)
            #expect(SubscriptionOffer.PaymentMode(rawValue: "free") == .freeTrial)
            #expect(SubscriptionOffer.PaymentMode(rawValue: "freeTrial") == nil)
        }
    }
}
