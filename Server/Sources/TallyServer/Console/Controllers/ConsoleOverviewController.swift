import Foundation
import Hummingbird
import TallyCore

/// The console's overview (purchases, revenue, refunds, credit movements and verification
/// failures over a window) and its products page (the catalog as the server reads it).
struct ConsoleOverviewController: Sendable {
    let console: ConsoleStore
    let catalog: TallyCatalog
    let pages: ConsolePages
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("/") { request, context in try await overviewPage(request, context) }
            .get("products") { request, context in try productsPage(request, context) }
    }

    static let windows: [(String, TimeInterval)] = [("1d", 86_400), ("7d", 7 * 86_400), ("30d", 30 * 86_400), ("90d", 90 * 86_400)]

    func overviewPage(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let query = ConsoleQuery.fields(request)
        let chosen = query["window"] ?? "30d"
        guard let window = Self.windows.first(where: { $0.0 == chosen }) else {
            throw TallyAPIError(.invalidRequest, "window must be 1d, 7d, 30d or 90d")
        }
        // Up to and including this millisecond.
        let to = now().addingTimeInterval(0.001)
        let environment = ConsoleQuery.value(query, "environment")
        let environments = ConsolePages.environments
        guard environment == nil || environments.contains(environment!) else {
            throw TallyAPIError(.invalidRequest, "environment must be one of \(environments.joined(separator: ", "))")
        }
        let overview = try await console.overview(from: to.addingTimeInterval(-window.1), to: to, environment: environment)
        let language = context.language
        var view = pages.view(request, context, page: "overview", title: ConsoleText.text("nav_overview", language))
        view["windows"] = Self.windows.map { ["value": $0.0, "label": ConsoleText.text("window_\($0.0)", language), "selected": $0.0 == chosen] }
        view["environments"] = environments.map { ConsolePages.option($0, $0, environment) }
        view["from"] = ConsoleFormat.time(overview.from)
        view["to"] = ConsoleFormat.time(overview.to)
        view["purchases"] = overview.purchases
        view["refunds"] = overview.refunds
        view["failureCount"] = overview.verificationFailures.reduce(0) { $0 + $1.count }
        view["chart"] = ConsoleChart().view(overview.days, language: language)
        view["revenue"] = overview.revenue.map { revenue -> [String: Any] in
            [
                "currency": revenue.currency ?? "—", "storefront": revenue.storefront ?? "—", "count": revenue.count,
                "amount": ConsoleFormat.milliunits(revenue.milliunits),
            ]
        }
        view["refunded"] = overview.refunded.map { revenue -> [String: Any] in
            ["currency": revenue.currency ?? "—", "count": revenue.count, "amount": ConsoleFormat.milliunits(revenue.milliunits)]
        }
        let movement = { (movement: ConsoleOverview.Movement) -> [String: Any] in
            ["currency": movement.currency, "kind": movement.kind, "count": movement.count, "amount": ConsoleFormat.signed(movement.amount)]
        }
        view["movements"] = overview.movements.map(movement)
        view["debt"] = overview.debt.map { ["currency": $0.currency, "count": $0.count, "amount": $0.amount] as [String: Any] }
        view["failures"] = overview.verificationFailures.map(movement)
        return try pages.html(view, "overview")
    }

    func productsPage(_ request: Request, _ context: ConsoleOperatorContext) throws -> Response {
        var view = pages.view(request, context, page: "products", title: ConsoleText.text("nav_products", context.language))
        view["bundleID"] = catalog.app.bundleID
        view["environmentsText"] = catalog.app.environments.joined(separator: ", ")
        view["currencyRows"] = catalog.currencies.map { ["code": $0.code, "en": $0.names["en"] ?? "", "uk": $0.names["uk"] ?? ""] }
        view["rows"] = catalog.products.map { product -> [String: Any] in
            var row: [String: Any] = [
                "productID": product.productID, "kind": product.kind.rawValue,
                "grants": product.grants.map { "\($0.amount) \($0.currency)" }.joined(separator: ", "),
                "entitlements": product.entitlements.joined(separator: ", ")
                    + (product.durationDays.map { " (\($0) d)" } ?? ""),
                "allowance": product.allowance.map { "\($0.amount) \($0.currency) / \($0.per.rawValue)" } ?? "",
            ]
            for language in ["en", "uk"] {
                if let text = product.paywall[language] {
                    row[language] = ["title": text.title, "description": text.description, "benefits": text.benefits] as [String: Any]
                }
            }
            return row
        }
        return try pages.html(view, "products")
    }
}
