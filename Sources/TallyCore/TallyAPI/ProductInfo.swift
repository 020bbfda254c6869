/// A product as the server sells it, with its paywall text in one language.
public struct ProductInfo: Codable, Hashable, Sendable {
    /// The App Store product identifier.
    public var productID: String
    /// What kind of product it is.
    public var kind: ProductKind
    /// What one unit grants.
    public var grants: [Amount]
    /// The entitlements it unlocks.
    public var entitlements: [String]
    /// The periodic allowance of a subscription.
    public var allowance: Allowance?
    /// Paywall text in the requested language.
    public var paywall: Paywall
    /// A non-renewing subscription's length in days, for the paywall to show; absent otherwise.
    public var durationDays: Int?

    /// A periodic allowance: `amount` of `currency` per `per` (day, week, month, year).
    public struct Allowance: Codable, Hashable, Sendable {
        public var currency: String
        public var amount: Int64
        public var per: AllowancePeriod

        /// Creates a value with every field.
        public init(currency: String, amount: Int64, per: AllowancePeriod) {
            self.currency = currency
            self.amount = amount
            self.per = per
        }
    }

    /// Paywall text.
    public struct Paywall: Codable, Hashable, Sendable {
        public var title: String
        public var description: String
        public var benefits: [String]
        public var aiExplanation: String?
        public var locale: String

        /// Creates a value with every field.
        public init(title: String, description: String, benefits: [String], aiExplanation: String? = nil, locale: String) {
            self.title = title
            self.description = description
            self.benefits = benefits
            self.aiExplanation = aiExplanation
            self.locale = locale
        }
    }

    /// Creates a value with every field.
    public init(
        productID: String, kind: ProductKind, grants: [Amount], entitlements: [String], allowance: Allowance? = nil, paywall: Paywall,
        durationDays: Int? = nil
    ) {
        self.productID = productID
        self.kind = kind
        self.grants = grants
        self.entitlements = entitlements
        self.allowance = allowance
        self.paywall = paywall
        self.durationDays = durationDays
    }
}

/// The answer to `GET /v1/products`.
public struct ProductsResponse: Codable, Hashable, Sendable {
    /// The locale the texts are in.
    public var locale: String
    /// The currencies, with their display names in that locale.
    public var currencies: [Currency]
    /// The products.
    public var products: [ProductInfo]

    /// A currency and its display name.
    public struct Currency: Codable, Hashable, Sendable {
        public var code: String
        public var name: String

        /// Creates a value with every field.
        public init(code: String, name: String) {
            self.code = code
            self.name = name
        }
    }

    /// Creates a value with every field.
    public init(locale: String, currencies: [Currency], products: [ProductInfo]) {
        self.locale = locale
        self.currencies = currencies
        self.products = products
    }
}
