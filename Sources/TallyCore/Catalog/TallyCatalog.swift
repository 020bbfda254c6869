public import Foundation

/// What an app sells and what each product grants: the catalog file (`Examples/tally.json`),
/// read by the server (`tally serve --config`) and by apps without a backend (`OnDeviceCatalog`).
///
/// ```json
/// {"app": {"bundle_id": "com.tally.example", "app_apple_id": 6450000001, "environments": ["Production"]},
///  "currencies": [{"code": "credits", "names": {"en": "Credits", "uk": "Кредити"}}],
///  "signup_grants": [{"currency": "credits", "amount": 2}],
///  "products": [{"product_id": "com.tally.photo.credits.10", "kind": "consumable",
///                "grants": [{"currency": "credits", "amount": 10}], "paywall": {"en": {…}, "uk": {…}}}]}
/// ```
public struct TallyCatalog: Sendable, Codable {
    /// The app the server serves.
    public var app: App
    /// The currencies, by code.
    public var currencies: [Currency]
    /// Products by App Store product identifier.
    public var products: [Product]
    /// What every new user receives.
    public var signupGrants: [Amount]
    /// Request limits.
    public var limits: Limits
    /// Unpaid orders expire after this many seconds.
    public var orderTTLSeconds: Int64
    /// The longest reservation a client may ask for, in seconds.
    public var maximumReservationSeconds: Int64
    /// The secret key of server-to-server and admin calls; `TALLY_SECRET_KEY` overrides it.
    public var secretKey: String?

    /// The app.
    public struct App: Sendable, Codable {
        public var bundleID: String
        public var appAppleID: Int64?
        /// Production, Sandbox, Xcode.
        public var environments: [String]
    }

    /// A currency and its display names by language.
    public struct Currency: Sendable, Codable {
        public var code: String
        public var names: [String: String]
    }

    /// A product and what it gives.
    public struct Product: Sendable, Codable {
        public var productID: String
        /// consumable, non_consumable, non_renewing or auto_renewable.
        public var kind: ProductKind
        /// What one unit grants, multiplied by the transaction's quantity.
        public var grants: [Amount]
        /// Entitlements it unlocks.
        public var entitlements: [String]
        /// A subscription's periodic allowance.
        public var allowance: Allowance?
        /// How long a non-renewing subscription lasts, in days.
        public var durationDays: Int?
        /// Paywall text by language (`en`, `uk`).
        public var paywall: [String: PaywallText]
    }

    /// A periodic allowance of a subscription: used before purchased balance, reset each period.
    public struct Allowance: Sendable, Codable {
        public var currency: String
        public var amount: Int64
        /// How often it starts again.
        public var per: AllowancePeriod
    }

    /// Request limits, per server instance (docs/rate-limits.md says what each protects and
    /// how to size it).
    public struct Limits: Sendable, Codable {
        /// The largest request body, in bytes.
        public var maximumBodyBytes: Int
        /// Purchase, restore, spend and reservation requests one user may make per minute.
        public var userRequestsPerMinute: Int
        /// Those requests, and sign-ups without the secret key, that one client address may
        /// make per minute (an IPv6 client's /64 counts as one address).
        public var ipRequestsPerMinute: Int
        /// App Store notifications one client address may post per minute.
        public var notificationRequestsPerMinute: Int

        /// The defaults of a catalog that names no limits.
        public static let defaults = Limits(
            maximumBodyBytes: 64 * 1024, userRequestsPerMinute: 120, ipRequestsPerMinute: 6_000, notificationRequestsPerMinute: 3_000)

        /// Creates limits.
        public init(maximumBodyBytes: Int, userRequestsPerMinute: Int, ipRequestsPerMinute: Int, notificationRequestsPerMinute: Int) {
            self.maximumBodyBytes = maximumBodyBytes
            self.userRequestsPerMinute = userRequestsPerMinute
            self.ipRequestsPerMinute = ipRequestsPerMinute
            self.notificationRequestsPerMinute = notificationRequestsPerMinute
        }

        private enum CodingKeys: String, CodingKey {
            case maximumBodyBytes, userRequestsPerMinute, ipRequestsPerMinute, notificationRequestsPerMinute
        }

        /// Reads the limits a catalog names; those it leaves out keep their defaults.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Limits.defaults
            maximumBodyBytes = try container.decodeIfPresent(Int.self, forKey: .maximumBodyBytes) ?? defaults.maximumBodyBytes
            userRequestsPerMinute = try container.decodeIfPresent(Int.self, forKey: .userRequestsPerMinute) ?? defaults.userRequestsPerMinute
            ipRequestsPerMinute = try container.decodeIfPresent(Int.self, forKey: .ipRequestsPerMinute) ?? defaults.ipRequestsPerMinute
            notificationRequestsPerMinute =
                try container.decodeIfPresent(Int.self, forKey: .notificationRequestsPerMinute)
                ?? defaults.notificationRequestsPerMinute
        }
    }

    private enum CodingKeys: String, CodingKey {
        case app, currencies, products, signupGrants, limits, secretKey
        case orderTTLSeconds = "orderTtlSeconds"
        case maximumReservationSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        app = try container.decode(App.self, forKey: .app)
        currencies = try container.decode([Currency].self, forKey: .currencies)
        products = try container.decode([Product].self, forKey: .products)
        signupGrants = try container.decodeIfPresent([Amount].self, forKey: .signupGrants) ?? []
        limits = try container.decodeIfPresent(Limits.self, forKey: .limits) ?? .defaults
        orderTTLSeconds = try container.decodeIfPresent(Int64.self, forKey: .orderTTLSeconds) ?? 86_400
        maximumReservationSeconds = try container.decodeIfPresent(Int64.self, forKey: .maximumReservationSeconds) ?? 3_600
        secretKey = try container.decodeIfPresent(String.self, forKey: .secretKey)
    }

    /// Loads and checks a catalog file.
    /// - Throws: ``CatalogError`` naming the problem.
    public static func load(contentsOf url: URL) throws(CatalogError) -> TallyCatalog {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CatalogError(reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try parse(data)
    }

    /// Parses and checks a catalog.
    /// - Throws: ``CatalogError`` naming the problem.
    public static func parse(_ data: Data) throws(CatalogError) -> TallyCatalog {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = JSONKeys.fromSnakeCase
        let catalog: TallyCatalog
        do {
            catalog = try decoder.decode(TallyCatalog.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw CatalogError(reason: "\(path(context.codingPath + [key])): missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw CatalogError(reason: "\(path(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw CatalogError(reason: "\(path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw CatalogError(reason: "\(error)")
        }
        try catalog.check()
        return catalog
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }

    private func check() throws(CatalogError) {
        let codes = Set(currencies.map(\.code))
        guard codes.count == currencies.count else { throw CatalogError(reason: "currencies: a code appears twice") }
        for code in codes where code.isEmpty || code.count > 64 {
            throw CatalogError(reason: "currencies: '\(code)' must be 1 to 64 characters")
        }
        func checkAmount(_ amount: Amount, _ place: String) throws(CatalogError) {
            guard codes.contains(amount.currency) else { throw CatalogError(reason: "\(place): unknown currency \(amount.currency)") }
            guard amount.amount > 0, amount.amount <= Self.maximumAmount else {
                throw CatalogError(reason: "\(place): amount must be 1 to \(Self.maximumAmount)")
            }
        }
        for (index, grant) in signupGrants.enumerated() { try checkAmount(grant, "signup_grants[\(index)]") }
        var seen = Set<String>()
        for (index, product) in products.enumerated() {
            let place = "products[\(index)]"
            guard seen.insert(product.productID).inserted else { throw CatalogError(reason: "\(place): product_id \(product.productID) appears twice") }
            guard product.kind.isKnown else {
                throw CatalogError(reason: "\(place).kind: must be one of \(ProductKind.all.map(\.rawValue).joined(separator: ", "))")
            }
            for (grantIndex, grant) in product.grants.enumerated() { try checkAmount(grant, "\(place).grants[\(grantIndex)]") }
            if let allowance = product.allowance {
                guard product.kind == .autoRenewable else { throw CatalogError(reason: "\(place).allowance: only subscriptions have allowances") }
                try checkAmount(Amount(currency: allowance.currency, amount: allowance.amount), "\(place).allowance")
                guard allowance.per.isKnown else {
                    throw CatalogError(reason: "\(place).allowance.per: must be day, week, month or year")
                }
            }
            if product.kind == .nonRenewing, (product.durationDays ?? 0) <= 0, !product.entitlements.isEmpty {
                throw CatalogError(reason: "\(place).duration_days: a non-renewing subscription with entitlements needs a duration")
            }
            // Bounded so that no date arithmetic on them can overflow.
            if let days = product.durationDays, !(0...36_500).contains(days) {
                throw CatalogError(reason: "\(place).duration_days: must be 0 to 36500")
            }
        }
        guard (60...30 * 86_400).contains(orderTTLSeconds) else { throw CatalogError(reason: "order_ttl_seconds: must be 60 to 2592000") }
        guard (1...30 * 86_400).contains(maximumReservationSeconds) else {
            throw CatalogError(reason: "maximum_reservation_seconds: must be 1 to 2592000")
        }
        guard limits.maximumBodyBytes >= 1_024, limits.userRequestsPerMinute > 0, limits.ipRequestsPerMinute > 0,
            limits.notificationRequestsPerMinute > 0
        else {
            throw CatalogError(reason: "limits: maximum_body_bytes must be at least 1024 and the rates more than 0")
        }
        guard !app.environments.isEmpty else { throw CatalogError(reason: "app.environments: name at least one") }
        for environment in app.environments where !["Production", "Sandbox", "Xcode"].contains(environment) {
            throw CatalogError(reason: "app.environments: '\(environment)' is not Production, Sandbox or Xcode")
        }
    }

    /// The largest amount of any currency in one grant or request: far from `Int64` overflow
    /// whatever is summed.
    public static let maximumAmount: Int64 = 1_000_000_000_000

    /// A product by identifier.
    public func product(_ id: String) -> Product? { products.first { $0.productID == id } }

    /// Whether a currency exists.
    public func hasCurrency(_ code: String) -> Bool { currencies.contains { $0.code == code } }
}

/// A catalog that cannot be used, and why.
public struct CatalogError: Error, CustomStringConvertible, Sendable {
    /// Where and what.
    public let reason: String
    public var description: String { reason }
}
