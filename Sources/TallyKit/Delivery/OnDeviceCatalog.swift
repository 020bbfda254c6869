public import Foundation
public import TallyCore

/// What an app without a backend sells and what each product grants, with its paywall texts
/// in English and Ukrainian.
///
/// ```swift
/// let catalog = OnDeviceCatalog(products: [
///     .init(id: "com.tally.zorya.report.career", kind: .consumable, grants: [Amount(currency: "report.career", amount: 1)],
///           paywall: [.english: PaywallText(title: "Career Insights", description: "…"),
///                     .ukrainian: PaywallText(title: "Кар'єрні інсайти", description: "…")]),
/// ])
/// ```
public struct OnDeviceCatalog: Sendable, Hashable {
    /// One product.
    public struct Product: Sendable, Hashable {
        /// The App Store product identifier.
        public var id: String
        /// Its kind.
        public var kind: ProductKind
        /// What one unit grants; consumables only.
        public var grants: [Amount]
        /// What it unlocks while owned or subscribed.
        public var entitlements: [String]
        /// The paywall's texts by language; English is the fallback.
        public var paywall: [TallyLanguage: PaywallText]
        /// For a non-renewing subscription: how many days it lasts from its purchase (the App
        /// Store does not say; the app decides).
        public var durationDays: Int?

        /// - Parameters:
        ///   - id: the product identifier.
        ///   - kind: its kind.
        ///   - grants: what one unit grants.
        ///   - entitlements: what it unlocks.
        ///   - paywall: texts by language.
        ///   - durationDays: a non-renewing subscription's length in days.
        public init(
            id: String, kind: ProductKind, grants: [Amount] = [], entitlements: [String] = [], paywall: [TallyLanguage: PaywallText],
            durationDays: Int? = nil
        ) {
            self.id = id
            self.kind = kind
            self.grants = grants
            self.entitlements = entitlements
            self.paywall = paywall
            self.durationDays = durationDays
        }
    }

    /// The products.
    public var products: [Product]

    /// - Parameter products: the products; identifiers must be unique.
    public init(products: [Product]) {
        self.products = products
    }

    /// Reads the products of a Tally catalog file (the `tally serve` format, `Examples/tally.json`).
    /// - Parameter url: the file.
    /// - Throws: ``TallyError`` `invalid_request` when it cannot be read or has a problem.
    public static func load(contentsOf url: URL) throws(TallyError) -> OnDeviceCatalog {
        let file: TallyCatalog
        do {
            file = try TallyCatalog.load(contentsOf: url)
        } catch {
            throw TallyError(.invalidRequest, "the catalog \(url.path) is wrong: \(error.reason)")
        }
        let catalog = OnDeviceCatalog(file)
        if let problem = catalog.problem { throw TallyError(.invalidRequest, "the catalog \(url.path) is wrong: \(problem)") }
        return catalog
    }

    /// The products of a catalog file: what each grants and unlocks, and its paywall texts;
    /// the rest of the file is for the server.
    /// - Parameter file: the catalog.
    public init(_ file: TallyCatalog) {
        self.init(
            products: file.products.map { product in
                var texts: [TallyLanguage: PaywallText] = [:]
                for (code, text) in product.paywall { texts[TallyLanguage(identifier: code)] = text }
                return Product(
                    id: product.productID, kind: product.kind, grants: product.grants, entitlements: product.entitlements, paywall: texts,
                    durationDays: product.durationDays)
            })
    }

    /// The product with this identifier.
    public func product(_ id: String) -> Product? { products.first { $0.id == id } }

    /// The kind of each product, by identifier: what StoreKit 1 does not report
    /// (``StoreKit1Store/init(productKinds:productRequestTimeout:productRequestAttempts:now:queue:)``).
    public var kinds: [String: ProductKind] {
        Dictionary(products.map { ($0.id, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    /// What the catalog says is wrong with it, or `nil`: duplicate identifiers, grants that are
    /// not positive, grants on products that are not consumables, a non-renewing subscription
    /// that unlocks something without a duration, a product without English texts.
    public var problem: String? {
        var seen = Set<String>()
        for product in products {
            guard seen.insert(product.id).inserted else { return "product \(product.id) appears twice" }
            if product.grants.contains(where: { $0.amount <= 0 || $0.currency.isEmpty }) {
                return "product \(product.id) grants an amount that is not positive"
            }
            if !product.grants.isEmpty, product.kind != .consumable {
                return "product \(product.id) grants currency but is not a consumable"
            }
            if product.kind == .nonRenewing, !product.entitlements.isEmpty, !(1...36_500).contains(product.durationDays ?? 0) {
                return "product \(product.id) is a non-renewing subscription and needs a duration of 1 to 36500 days"
            }
            if product.paywall[.english] == nil { return "product \(product.id) has no English paywall text" }
        }
        return nil
    }

    /// The catalog as ``Delivery/catalog(language:)`` returns it.
    func grants(in language: TallyLanguage) -> [ProductGrant] {
        products.map { product in
            ProductGrant(
                id: product.id, kind: product.kind, grants: product.grants, entitlements: product.entitlements,
                paywall: product.paywall[language] ?? product.paywall[.english] ?? PaywallText(title: product.id, description: ""),
                durationDays: product.durationDays)
        }
    }
}
