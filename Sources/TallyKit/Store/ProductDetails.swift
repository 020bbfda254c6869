import Foundation
public import TallyCore

/// A product as the store sells it: names and price in the customer's storefront.
///
/// Prices are what the store says, never hard-coded: ``displayPrice`` is the store's localized
/// text, ``price`` the same amount in thousandths of ``currencyCode``'s unit (4.99 is 4990).
public struct ProductDetails: Sendable, Hashable, Identifiable {
    /// The product identifier.
    public var id: String
    /// What kind of product it is.
    public var kind: ProductKind
    /// The localized name.
    public var displayName: String
    /// The localized description.
    public var description: String
    /// The localized price, as the store formats it ("4,99 €", "199,99 ₴").
    public var displayPrice: String
    /// The price in thousandths of the currency unit.
    public var price: Int64
    /// The ISO 4217 currency code of the storefront.
    public var currencyCode: String
    /// For an auto-renewable subscription: its period and group.
    public var subscription: SubscriptionTerms?

    /// Creates product details.
    /// - Parameters:
    ///   - id: the product identifier.
    ///   - kind: its kind.
    ///   - displayName: the localized name.
    ///   - description: the localized description.
    ///   - displayPrice: the localized price text.
    ///   - price: thousandths of the currency unit.
    ///   - currencyCode: ISO 4217.
    ///   - subscription: period and group of a subscription.
    public init(
        id: String, kind: ProductKind, displayName: String, description: String, displayPrice: String,
        price: Int64, currencyCode: String, subscription: SubscriptionTerms? = nil
    ) {
        self.id = id
        self.kind = kind
        self.displayName = displayName
        self.description = description
        self.displayPrice = displayPrice
        self.price = price
        self.currencyCode = currencyCode
        self.subscription = subscription
    }

    /// A store's decimal price in thousandths of the currency unit (4.99 is 4990), rounded.
    static func thousandths(_ price: Decimal) -> Int64 {
        var scaled = price * 1000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        return NSDecimalNumber(decimal: rounded).int64Value
    }
}

/// The terms of an auto-renewable subscription.
public struct SubscriptionTerms: Sendable, Hashable {
    /// How long one period lasts.
    public var period: Period
    /// The subscription group.
    public var groupID: String
    /// The introductory offer (a free trial, say), if the product has one.
    public var introductoryOffer: IntroductoryOffer?
    /// Whether this customer may still take the introductory offer: the store says no once
    /// they have had one in the group.
    public var isEligibleForIntroductoryOffer: Bool

    /// - Parameters:
    ///   - period: one period.
    ///   - groupID: the group.
    ///   - introductoryOffer: the introductory offer, if any.
    ///   - isEligibleForIntroductoryOffer: whether this customer may take it.
    public init(period: Period, groupID: String, introductoryOffer: IntroductoryOffer? = nil, isEligibleForIntroductoryOffer: Bool = false) {
        self.period = period
        self.groupID = groupID
        self.introductoryOffer = introductoryOffer
        self.isEligibleForIntroductoryOffer = isEligibleForIntroductoryOffer
    }

    /// An introductory offer, as the store describes it.
    public struct IntroductoryOffer: Sendable, Hashable {
        /// How the customer pays during it.
        public enum PaymentMode: String, Sendable, Hashable {
            /// Nothing: a free trial.
            case freeTrial
            /// A lower price each period of the offer.
            case payAsYouGo
            /// One price for the whole offer, at its start.
            case payUpFront
        }

        /// How the customer pays.
        public var paymentMode: PaymentMode
        /// One period of the offer.
        public var period: Period
        /// How many periods it lasts.
        public var periodCount: Int
        /// The offer's price as the store formats it ("$0.00" for a trial).
        public var displayPrice: String

        /// - Parameters:
        ///   - paymentMode: how the customer pays.
        ///   - period: one period.
        ///   - periodCount: how many periods.
        ///   - displayPrice: the price as text.
        public init(paymentMode: PaymentMode, period: Period, periodCount: Int, displayPrice: String) {
            self.paymentMode = paymentMode
            self.period = period
            self.periodCount = periodCount
            self.displayPrice = displayPrice
        }
    }

    /// A subscription period: `value` × `unit`.
    public struct Period: Sendable, Hashable {
        /// The unit of a period.
        public enum Unit: String, Sendable, Hashable { case day, week, month, year }
        /// How many units.
        public var value: Int
        /// The unit.
        public var unit: Unit

        /// - Parameters:
        ///   - value: how many units.
        ///   - unit: the unit.
        public init(value: Int, unit: Unit) {
            self.value = value
            self.unit = unit
        }
    }
}
