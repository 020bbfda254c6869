import Hummingbird
import TallyCore

/// `GET /v1/products?locale=uk`: what the server sells, with paywall texts and currency names
/// in the caller's language (English when the catalog has none in it). Anyone may call it.
struct ProductController {
    let catalog: TallyCatalog

    var endpoints: RouteCollection<TallyRequestContext> {
        RouteCollection(context: TallyRequestContext.self)
            .get(use: list)
    }

    /// The catalog in the language `locale` names (`uk-UA` → `uk`).
    func list(_ request: Request, context: TallyRequestContext) -> ProductsResponse {
        let requested = request.uri.queryParameters.string("locale") ?? "en"
        let language = String(requested.prefix { $0 != "-" && $0 != "_" }).lowercased()
        let locale = catalog.products.first?.paywall[language] != nil ? language : "en"
        let currencies = catalog.currencies.map {
            ProductsResponse.Currency(code: $0.code, name: $0.names[locale] ?? $0.names["en"] ?? $0.code)
        }
        return ProductsResponse(locale: locale, currencies: currencies, products: catalog.products.map { Self.info($0, locale: locale) })
    }

    /// A product as the API describes it, its paywall in `locale`.
    static func info(_ product: TallyCatalog.Product, locale: String) -> ProductInfo {
        let paywall = product.paywall[locale] ?? product.paywall["en"] ?? product.paywall.values.first
        return ProductInfo(
            productID: product.productID, kind: product.kind, grants: product.grants, entitlements: product.entitlements,
            allowance: product.allowance.map { ProductInfo.Allowance(currency: $0.currency, amount: $0.amount, per: $0.per) },
            paywall: ProductInfo.Paywall(
                title: paywall?.title ?? product.productID, description: paywall?.description ?? "", benefits: paywall?.benefits ?? [],
                aiExplanation: paywall?.aiExplanation, locale: locale),
            durationDays: product.kind == .nonRenewing ? product.durationDays : nil)
    }
}
