extension StoreKitConfiguration {
    /// The test settings of a StoreKit configuration (`settings`), as Xcode's Editor menu sets them.
    ///
    /// Keys Xcode writes, and what each becomes:
    ///
    /// | key | property |
    /// |---|---|
    /// | `_askToBuyEnabled` | ``askToBuyEnabled`` |
    /// | `_billingGracePeriodEnabled` | ``billingGracePeriodEnabled`` |
    /// | `_renewalBillingIssuesEnabled`, `_billingIssuesEnabled` | ``billingIssuesEnabled`` (either one) |
    /// | `_failTransactionsEnabled` | ``failTransactionsEnabled`` |
    /// | `_disableDialogs` | ``disableDialogs`` |
    /// | `_locale` | ``locale`` |
    /// | `_storefront` | ``storefront`` |
    /// | `_timeRate` | ``timeRate`` (an unknown raw value is an error) |
    /// | `_storeKitErrors` | ``storeKitErrors`` |
    ///
    /// Xcode writes no key for interrupted purchases (it is an `SKTestSession` property only);
    /// ``interruptedPurchasesEnabled`` is false unless a file carries Tally's own
    /// `_interruptedPurchasesEnabled`.
    public struct Settings: Sendable, Hashable {
        /// Purchases wait for a parent's approval (Ask to Buy).
        public var askToBuyEnabled: Bool
        /// A renewal that fails keeps the subscriber's access during a grace period.
        public var billingGracePeriodEnabled: Bool
        /// Renewals fail with a billing issue and enter billing retry.
        public var billingIssuesEnabled: Bool
        /// Purchases fail.
        public var failTransactionsEnabled: Bool
        /// Purchases are interrupted and need the customer's action before they complete.
        public var interruptedPurchasesEnabled: Bool
        /// Purchases complete without confirmation dialogs.
        public var disableDialogs: Bool
        /// The locale of the store, e.g. `en_US`.
        public var locale: String
        /// The storefront, as an ISO 3166-1 alpha-3 country code, e.g. `USA`.
        public var storefront: String
        /// How fast subscription time passes.
        public var timeRate: TimeRate
        /// The StoreKit API errors the file asks to simulate, in file order.
        public var storeKitErrors: [StoreKitConfiguration.ErrorSetting]

        /// Settings as a new Xcode file has them: everything off, `en_US`, `USA`, real time.
        public init(
            askToBuyEnabled: Bool = false, billingGracePeriodEnabled: Bool = false, billingIssuesEnabled: Bool = false,
            failTransactionsEnabled: Bool = false, interruptedPurchasesEnabled: Bool = false, disableDialogs: Bool = false,
            locale: String = "en_US", storefront: String = "USA", timeRate: TimeRate = .realTime,
            storeKitErrors: [StoreKitConfiguration.ErrorSetting] = []
        ) {
            self.askToBuyEnabled = askToBuyEnabled
            self.billingGracePeriodEnabled = billingGracePeriodEnabled
            self.billingIssuesEnabled = billingIssuesEnabled
            self.failTransactionsEnabled = failTransactionsEnabled
            self.interruptedPurchasesEnabled = interruptedPurchasesEnabled
            self.disableDialogs = disableDialogs
            self.locale = locale
            self.storefront = storefront
            self.timeRate = timeRate
            self.storeKitErrors = storeKitErrors
        }

        /// The ISO 4217 currency of ``storefront``; see ``currency(forStorefront:)`` for the table.
        public var currency: String { Self.currency(forStorefront: storefront) }

        /// The currency the simulated store charges in a storefront.
        ///
        /// | storefront | currency |
        /// |---|---|
        /// | `USA` | `USD` |
        /// | `UKR` | `UAH` |
        /// | `GBR` | `GBP` |
        /// | euro area: `AUT` `BEL` `BGR` `CYP` `DEU` `ESP` `EST` `FIN` `FRA` `GRC` `HRV` `IRL` `ITA` `LTU` `LUX` `LVA` `MLT` `NLD` `PRT` `SVK` `SVN` | `EUR` |
        /// | `JPN` | `JPY` |
        /// | `CAN` | `CAD` |
        /// | `AUS` | `AUD` |
        /// | `CHE` | `CHF` |
        /// | `POL` | `PLN` |
        /// | any other | `USD` |
        ///
        /// The euro area is its 21 members since Bulgaria joined on 1 January 2026. Letter case is ignored.
        /// - Parameter storefront: an ISO 3166-1 alpha-3 country code.
        /// - Returns: an ISO 4217 currency code.
        public static func currency(forStorefront storefront: String) -> String {
            let code = storefront.uppercased()
            if let currency = currencies[code] { return currency }
            return euroArea.contains(code) ? "EUR" : "USD"
        }

        private static let currencies: [String: String] = [
            "USA": "USD", "UKR": "UAH", "GBR": "GBP", "JPN": "JPY", "CAN": "CAD",
            "AUS": "AUD", "CHE": "CHF", "POL": "PLN",
        ]

        private static let euroArea: Set<String> = [
            "AUT", "BEL", "BGR", "CYP", "DEU", "ESP", "EST", "FIN", "FRA", "GRC", "HRV",
            "IRL", "ITA", "LTU", "LUX", "LVA", "MLT", "NLD", "PRT", "SVK", "SVN",
        ]
    }

    /// One entry of `_storeKitErrors`: a StoreKit API whose calls Xcode can make fail.
    ///
    /// Xcode writes each as `{"current": null, "enabled": false, "name": "Load Products"}`, one per
    /// API: `Load Products`, `Purchase`, `Verification`, `App Store Sync`, `Subscription Status`,
    /// `App Transaction`, `Manage Subscriptions Sheet`, `Refund Request Sheet`,
    /// `Offer Code Redeem Sheet`. What `current` holds once an error is chosen is not documented,
    /// so it is kept as its raw JSON text.
    public struct ErrorSetting: Sendable, Hashable {
        /// The API whose calls fail, as Xcode names it (`name`), e.g. `Purchase`.
        public var api: String
        /// Whether the failure is switched on (`enabled`).
        public var enabled: Bool
        /// The chosen error (`current`) as compact JSON text with sorted keys; `nil` when `null` or absent.
        public var rawCurrent: String?

        /// - Parameters:
        ///   - api: the API's name.
        ///   - enabled: whether it fails.
        ///   - rawCurrent: the chosen error as JSON text.
        public init(api: String, enabled: Bool, rawCurrent: String? = nil) {
            self.api = api
            self.enabled = enabled
            self.rawCurrent = rawCurrent
        }

        /// `Load Products`.
        public static let loadProducts = "Load Products"
        /// `Purchase`.
        public static let purchase = "Purchase"
        /// `Verification`.
        public static let verification = "Verification"
        /// `App Store Sync`.
        public static let appStoreSync = "App Store Sync"
        /// `Subscription Status`.
        public static let subscriptionStatus = "Subscription Status"
        /// `App Transaction`.
        public static let appTransaction = "App Transaction"
        /// `Manage Subscriptions Sheet`.
        public static let manageSubscriptionsSheet = "Manage Subscriptions Sheet"
        /// `Refund Request Sheet`.
        public static let refundRequestSheet = "Refund Request Sheet"
        /// `Offer Code Redeem Sheet`.
        public static let offerCodeRedeemSheet = "Offer Code Redeem Sheet"
    }
}
