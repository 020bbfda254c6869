import Hummingbird
import TallyCore

/// The user's orders: an order names the product about to be bought and the
/// `appAccountToken` to buy it with; the purchase that pays it fulfils it.
/// `POST /v1/me/orders`, `GET /v1/me/orders/{id}`, `POST /v1/me/orders/{id}/fail`.
struct OrderController {
    let purchases: PurchaseStore

    var endpoints: RouteCollection<UserRequestContext> {
        RouteCollection(context: UserRequestContext.self)
            .post(use: create)
            .get(":id", use: get)
            .post(":id/fail", use: fail)
    }

    /// 201 with a new order for `product_id`.
    func create(_ request: Request, context: UserRequestContext) async throws -> EditedResponse<Order> {
        let body = try await request.decode(as: CreateOrderRequest.self, context: context)
        return EditedResponse(status: .created, response: try await purchases.createOrder(user: context.user, productID: body.productID))
    }

    /// One of the user's orders; 404 for another user's.
    func get(_ request: Request, context: UserRequestContext) async throws -> Order {
        try await purchases.order(user: context.user, id: context.parameters.identifier("id"))
    }

    /// Closes an unpaid order as failed, with the app's `reason`.
    func fail(_ request: Request, context: UserRequestContext) async throws -> Order {
        let body = try await request.decode(as: FailOrderRequest.self, context: context)
        return try await purchases.failOrder(user: context.user, id: context.parameters.identifier("id"), reason: body.reason)
    }
}
