import Foundation
import Hummingbird
import TallyCore

/// The admin API, for the app's team with the secret key: a user's account
/// (`GET /v1/admin/users/{id}`), adjustments to it (`POST …/{id}/adjustments`), and the store
/// transactions and notifications received (`GET /v1/admin/transactions`, `…/notifications`), and
/// the subscription and revenue figures of a window (`GET /v1/admin/metrics`).
struct AdminController {
    let admin: AdminStore
    let figures: MetricsStore
    /// Which day is today, for the metrics' default window.
    let now: @Sendable () -> Date

    /// An adjustment's body: a signed amount (negative takes back), why, and the idempotency key.
    struct AdjustmentBody: Decodable {
        var currency: String
        var amount: Int64
        var reason: String
        var idempotencyKey: String
    }

    /// What `type` may name: a product kind, as "consumable, non_consumable, … or auto_renewable".
    static let productTypes: String = {
        let kinds = ProductKind.all.map(\.rawValue)
        return kinds.dropLast().joined(separator: ", ") + " or " + (kinds.last ?? "")
    }()

    var endpoints: RouteCollection<AdminRequestContext> {
        RouteCollection(context: AdminRequestContext.self)
            .get("users/:id", use: user)
            .post("users/:id/adjustments", use: adjust)
            .get("transactions", use: transactions)
            .get("notifications", use: notifications)
            .get("metrics", use: metrics)
    }

    /// A user's balances, entitlements, subscriptions and recent ledger.
    func user(_ request: Request, context: AdminRequestContext) async throws -> AdminUser {
        try await admin.adminUser(id: context.parameters.identifier("id"))
    }

    /// Credits or takes back an amount; the same key again changes nothing.
    func adjust(_ request: Request, context: AdminRequestContext) async throws -> AdminAdjustment {
        let body = try await request.decode(as: AdjustmentBody.self, context: context)
        return try await admin.adjust(
            userID: context.parameters.identifier("id"), amount: Amount(currency: body.currency, amount: body.amount),
            reason: body.reason, idempotencyKey: body.idempotencyKey)
    }

    /// Store transactions, newest first, filtered by `type`, `status`, `environment`, `user_id`, `product_id` and `q`.
    func transactions(_ request: Request, context: AdminRequestContext) async throws -> AdminTransactionPage {
        let query = request.uri.queryParameters
        if let type = query.string("type"), ProductKind(known: type) == nil {
            throw TallyAPIError(.invalidRequest, "type must be \(Self.productTypes)")
        }
        return try await admin.adminTransactions(
            AdminTransactionQuery(
                type: query.string("type"), status: query.string("status"), environment: query.string("environment"),
                userID: query.string("user_id"), productID: query.string("product_id"), text: query.string("q"),
                limit: try query.pageSize(), cursor: try query.adminCursor()))
    }

    /// App Store notifications received, newest first, of one `outcome` when given.
    func notifications(_ request: Request, context: AdminRequestContext) async throws -> AdminNotificationPage {
        let query = request.uri.queryParameters
        let outcome = query.string("outcome")
        if let outcome, NotificationOutcome(rawValue: outcome) == nil {
            throw TallyAPIError(.invalidRequest, "outcome must be applied, duplicate or recorded")
        }
        return try await admin.adminNotifications(outcome: outcome, limit: try query.pageSize(), cursor: try query.adminCursor())
    }

    /// The figures of docs/metrics.md over `from` through `through` (UTC days, by default the 30
    /// days through today), of one `environment` (Production by default), for every product, a
    /// `product_id` or a `subscription_group`.
    func metrics(_ request: Request, context: AdminRequestContext) async throws -> MetricsReport {
        let parameters = request.uri.queryParameters
        return try await figures.report(try MetricsQuery(reading: { parameters.string($0) }, today: now()))
    }
}
