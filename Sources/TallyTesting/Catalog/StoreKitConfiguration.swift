public import Foundation

/// An Xcode StoreKit configuration file (`.storekit`, JSON): the products a simulated App
/// Store sells, their subscription groups and offers, and the test settings.
///
/// Products come from three places in the file: `products` (consumables and
/// non-consumables), `nonRenewingSubscriptions`, and `subscriptionGroups[].subscriptions`
/// (auto-renewable subscriptions). Keys this reader does not use (`internalID`,
/// `billingPlans`, `appPolicies`, `version`…) are ignored. A value it needs that is missing
/// or malformed is an error naming its place, e.g.
/// `subscriptionGroups[0].subscriptions[1].recurringSubscriptionPeriod`.
///
/// ```swift
/// let catalog = try StoreKitConfiguration.load(contentsOf: URL(fileURLWithPath: "Examples/Tally.storekit"))
/// let monthly = catalog.product(id: "com.tally.pro.monthly")!
/// monthly.price                                   // 4990
/// monthly.subscription?.period.iso8601            // "P1M"
/// monthly.subscription?.introductoryOffer?.paymentMode == .freeTrial   // true
/// catalog.settings.currency                       // "USD"
/// ```
public struct StoreKitConfiguration: Sendable, Hashable {
    /// The file's `identifier`, if it has one.
    public var identifier: String?
    /// Every product, subscriptions included. Sections come in the order Xcode writes its
    /// (alphabetically sorted) keys — `nonRenewingSubscriptions`, `products`, then each group's
    /// `subscriptions` — and each section in array order.
    public var products: [StoreKitConfiguration.Product]
    /// The subscription groups, in file order.
    public var subscriptionGroups: [SubscriptionGroup]
    /// The test settings.
    public var settings: StoreKitConfiguration.Settings

    /// Creates a configuration in code.
    /// - Parameters:
    ///   - identifier: the file identifier.
    ///   - products: the products.
    ///   - subscriptionGroups: the subscription groups.
    ///   - settings: the settings.
    public init(
        identifier: String? = nil, products: [StoreKitConfiguration.Product], subscriptionGroups: [SubscriptionGroup] = [],
        settings: StoreKitConfiguration.Settings = StoreKitConfiguration.Settings()
    ) {
        self.identifier = identifier
        self.products = products
        self.subscriptionGroups = subscriptionGroups
        self.settings = settings
    }

    /// Reads a configuration from the JSON of a `.storekit` file.
    /// - Parameter json: the file's bytes.
    /// - Throws: ``StoreKitConfigurationError`` naming the first value that is missing or
    ///   malformed: not JSON, a product without `productID` or `type`, an unknown `type`, a
    ///   price that is not a decimal with at most 3 fractional digits, a period that is not
    ///   ISO 8601, a subscription whose `subscriptionGroupID` names no group, two products
    ///   with one identifier…
    public init(json: Data) throws(StoreKitConfigurationError) {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        } catch {
            throw StoreKitConfigurationError(.invalidJSON, path: "", reason: "the file is not JSON (\(error.localizedDescription))")
        }
        guard root is [String: Any] else {
            throw StoreKitConfigurationError(
                .invalidJSON, path: "", reason: "the document is \(StoreKitJSONNode(value: root, path: "").kindName), not a JSON object")
        }
        self = try StoreKitConfigurationReader.read(StoreKitJSONNode(value: root, path: ""))
    }

    /// Reads a `.storekit` file.
    /// - Parameter url: the file.
    /// - Returns: its configuration.
    /// - Throws: ``StoreKitConfigurationError`` with code `unreadable` when the file cannot be
    ///   read, or as ``init(json:)`` for its contents.
    public static func load(contentsOf url: URL) throws(StoreKitConfigurationError) -> StoreKitConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StoreKitConfigurationError(.unreadable, path: "", reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try StoreKitConfiguration(json: data)
    }

    /// The product with identifier `id`.
    /// - Parameter id: a product identifier.
    /// - Returns: `nil` when the configuration has no such product.
    public func product(id: String) -> StoreKitConfiguration.Product? {
        products.first { $0.id == id }
    }

    /// The subscription group with identifier `id`.
    /// - Parameter id: a group identifier.
    /// - Returns: `nil` when there is no such group.
    public func subscriptionGroup(id: String) -> SubscriptionGroup? {
        subscriptionGroups.first { $0.id == id }
    }
}
