extension StoreKitConfiguration {
    /// One product of a StoreKit configuration: a consumable, a non-consumable, a non-renewing
    /// subscription or an auto-renewable subscription, as the simulated store sells it.
    ///
    /// Prices are exact: ``price`` counts thousandths of the storefront's currency unit
    /// (milliunits), read from the decimal text Xcode writes, never through floating point.
    ///
    /// ```swift
    /// let product = configuration.product(id: "com.tally.photo.credits.10")!
    /// product.kind == .consumable                        // true
    /// product.price                                      // 1990 (1.99 USD)
    /// product.localization(for: "uk_UA")?.displayName    // "10 кредитів"
    /// ```
    public struct Product: Sendable, Hashable, Identifiable {
        /// The product identifier (`productID`).
        public var id: String
        /// The name used in App Store Connect and Xcode, never shown to customers (`referenceName`).
        public var referenceName: String
        /// What kind of product it is.
        public var kind: Kind
        /// The price as the file writes it, e.g. `4.99`.
        public var displayPrice: String
        /// The price in milliunits of the storefront currency: `4.99` is 4990, `1200` is 1 200 000.
        public var price: Int64
        /// Whether Family Sharing is enabled for it.
        public var familyShareable: Bool
        /// Its names and descriptions, in file order.
        public var localizations: [StoreKitConfiguration.Localization]
        /// For an auto-renewable subscription: its group, level, period and offers; `nil` otherwise
        /// (a non-renewing subscription has no period in Xcode).
        public var subscription: StoreKitConfiguration.SubscriptionInfo?

        /// Creates a product.
        /// - Parameters:
        ///   - id: the product identifier.
        ///   - referenceName: the internal name.
        ///   - kind: the kind.
        ///   - displayPrice: the price as text.
        ///   - price: the price in milliunits.
        ///   - familyShareable: whether Family Sharing is enabled.
        ///   - localizations: names and descriptions.
        ///   - subscription: subscription details, for auto-renewables only.
        public init(
            id: String, referenceName: String, kind: Kind, displayPrice: String, price: Int64,
            familyShareable: Bool = false, localizations: [StoreKitConfiguration.Localization] = [], subscription: StoreKitConfiguration.SubscriptionInfo? = nil
        ) {
            self.id = id
            self.referenceName = referenceName
            self.kind = kind
            self.displayPrice = displayPrice
            self.price = price
            self.familyShareable = familyShareable
            self.localizations = localizations
            self.subscription = subscription
        }

        /// The localization for `locale`: the exact one (`uk_UA`; `uk-UA` is the same, letter case
        /// ignored), else the first one of the same language (`uk` finds `uk_UA`), else the first.
        /// - Parameter locale: a locale identifier such as `en_US`.
        /// - Returns: `nil` only when the product has no localization.
        public func localization(for locale: String) -> StoreKitConfiguration.Localization? {
            StoreKitConfiguration.Localization.best(in: localizations, for: locale)
        }

        /// The kind of a product. Its raw value is the `type` Xcode writes.
        public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            /// The `type` text: `Consumable`, `NonConsumable`, `NonRenewingSubscription`, `RecurringSubscription`.
            public let rawValue: String

            /// A known kind; `nil` for any other `type`.
            public init?(rawValue: String) {
                guard Self.all.contains(where: { $0.rawValue == rawValue }) else { return nil }
                self.rawValue = rawValue
            }

            private init(_ rawValue: String) { self.rawValue = rawValue }

            /// Bought again and again; used up (credits, top-ups).
            public static let consumable = Self("Consumable")
            /// Bought once, kept forever, restorable.
            public static let nonConsumable = Self("NonConsumable")
            /// A subscription for a fixed time that does not renew by itself.
            public static let nonRenewingSubscription = Self("NonRenewingSubscription")
            /// A subscription that renews each period until cancelled.
            public static let autoRenewableSubscription = Self("RecurringSubscription")

            /// The four kinds.
            public static let all: [Kind] = [.consumable, .nonConsumable, .nonRenewingSubscription, .autoRenewableSubscription]

            /// The `type` text.
            public var description: String { rawValue }
        }
    }

    /// A product's (or a subscription group's) name and description in one locale.
    public struct Localization: Sendable, Hashable {
        /// The locale identifier as the file writes it: `en_US`, `uk_UA`, `de`.
        public var locale: String
        /// The name customers see.
        public var displayName: String
        /// The description customers see.
        public var description: String

        /// - Parameters:
        ///   - locale: the locale identifier.
        ///   - displayName: the name.
        ///   - description: the description.
        public init(locale: String, displayName: String, description: String) {
            self.locale = locale
            self.displayName = displayName
            self.description = description
        }

        /// Exact match, then same language, then the first.
        static func best(in localizations: [StoreKitConfiguration.Localization], for locale: String) -> StoreKitConfiguration.Localization? {
            let wanted = normalized(locale)
            if let exact = localizations.first(where: { normalized($0.locale) == wanted }) { return exact }
            let language = wanted.split(separator: "_", maxSplits: 1).first.map(String.init) ?? wanted
            if let sameLanguage = localizations.first(where: {
                normalized($0.locale).split(separator: "_", maxSplits: 1).first.map(String.init) == language
            }) {
                return sameLanguage
            }
            return localizations.first
        }

        private static func normalized(_ locale: String) -> String {
            String(locale.lowercased().map { $0 == "-" ? "_" : $0 })
        }
    }

    /// What an auto-renewable subscription adds to a product.
    public struct SubscriptionInfo: Sendable, Hashable {
        /// The subscription group's identifier (`subscriptionGroupID`, the group's `id`).
        public var groupID: String
        /// The subscription group's name.
        public var groupName: String
        /// The level in the group (`groupNumber`): 1 is the highest tier; equal levels are peers.
        public var level: Int
        /// How long each renewal lasts (`recurringSubscriptionPeriod`).
        public var period: SubscriptionPeriod
        /// The introductory offer (free trial or discounted start), if any.
        public var introductoryOffer: SubscriptionOffer?
        /// Promotional offers, signed by the developer (`adHocOffers`).
        public var promotionalOffers: [SubscriptionOffer]
        /// Win-back offers for lapsed subscribers (`winbackOffers`).
        public var winBackOffers: [SubscriptionOffer]
        /// Offer codes (`codeOffers`).
        public var offerCodes: [SubscriptionOffer]

        /// - Parameters:
        ///   - groupID: the group's identifier.
        ///   - groupName: the group's name.
        ///   - level: the level, 1 the highest.
        ///   - period: the renewal period.
        ///   - introductoryOffer: the introductory offer.
        ///   - promotionalOffers: promotional offers.
        ///   - winBackOffers: win-back offers.
        ///   - offerCodes: offer codes.
        public init(
            groupID: String, groupName: String, level: Int, period: SubscriptionPeriod,
            introductoryOffer: SubscriptionOffer? = nil, promotionalOffers: [SubscriptionOffer] = [],
            winBackOffers: [SubscriptionOffer] = [], offerCodes: [SubscriptionOffer] = []
        ) {
            self.groupID = groupID
            self.groupName = groupName
            self.level = level
            self.period = period
            self.introductoryOffer = introductoryOffer
            self.promotionalOffers = promotionalOffers
            self.winBackOffers = winBackOffers
            self.offerCodes = offerCodes
        }

        /// The promotional offer with identifier `id`.
        /// - Parameter id: the `offerID`.
        /// - Returns: `nil` when there is none.
        public func promotionalOffer(id: String) -> SubscriptionOffer? {
            promotionalOffers.first { $0.id == id }
        }
    }
}
