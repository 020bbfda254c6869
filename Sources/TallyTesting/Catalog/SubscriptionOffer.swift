/// A subscription offer: introductory, promotional, win-back or offer code.
///
/// ```swift
/// let trial = product.subscription?.introductoryOffer
/// trial?.paymentMode == .freeTrial      // true
/// trial?.period.iso8601                 // "P1W"
/// ```
public struct SubscriptionOffer: Sendable, Hashable {
    /// The offer identifier (`offerID`); `nil` for the introductory offer, which has none.
    public var id: String?
    /// How the customer pays during the offer.
    public var paymentMode: PaymentMode
    /// The length of one offer period (`subscriptionPeriod`).
    public var period: SubscriptionPeriod
    /// How many periods the offer lasts.
    public var numberOfPeriods: Int
    /// The price as the file writes it; `nil` when it writes none (free trials).
    public var displayPrice: String?
    /// The price in milliunits of the storefront currency; 0 for a free trial. Pay as you go:
    /// charged each period. Pay up front: charged once for all ``numberOfPeriods``.
    public var price: Int64

    /// - Parameters:
    ///   - id: the offer identifier.
    ///   - paymentMode: how the customer pays.
    ///   - period: one offer period.
    ///   - numberOfPeriods: how many periods.
    ///   - displayPrice: the price as text.
    ///   - price: the price in milliunits.
    public init(
        id: String?, paymentMode: PaymentMode, period: SubscriptionPeriod, numberOfPeriods: Int,
        displayPrice: String?, price: Int64
    ) {
        self.id = id
        self.paymentMode = paymentMode
        self.period = period
        self.numberOfPeriods = numberOfPeriods
        self.displayPrice = displayPrice
        self.price = price
    }

    /// How the customer pays during an offer. Its raw value is the `paymentMode` Xcode writes.
    public struct PaymentMode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The `paymentMode` text: `free`, `payAsYouGo` or `payUpFront`.
        public let rawValue: String

        /// A known mode; `nil` for any other text.
        public init?(rawValue: String) {
            guard [Self.freeTrial, .payAsYouGo, .payUpFront].contains(where: { $0.rawValue == rawValue }) else { return nil }
            self.rawValue = rawValue
        }

        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// Nothing is charged during the offer (`free`).
        public static let freeTrial = Self("free")
        /// A discounted price is charged every period of the offer (`payAsYouGo`).
        public static let payAsYouGo = Self("payAsYouGo")
        /// One price is charged at the start for the whole offer (`payUpFront`).
        public static let payUpFront = Self("payUpFront")

        /// The `paymentMode` text.
        public var description: String { rawValue }
    }
}
