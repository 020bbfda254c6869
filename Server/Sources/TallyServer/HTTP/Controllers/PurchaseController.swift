import Hummingbird
import TallyCore

/// Purchases a device posts: `POST /v1/me/purchases` (one signed transaction, optionally
/// paying an order) and `POST /v1/me/restore` (up to 100, each delivered on its own). Each
/// transaction is verified, then granted exactly once; posting it again grants nothing more.
struct PurchaseController {
    let storage: any TallyStorage
    let checker: SignedDataChecker
    let metrics: Metrics

    var endpoints: RouteCollection<UserRequestContext> {
        RouteCollection(context: UserRequestContext.self)
            .post("purchases", use: purchase)
            .post("restore", use: restore)
    }

    /// What the transaction granted, or `replayed` with nothing more when it was delivered before.
    func purchase(_ request: Request, context: UserRequestContext) async throws -> PurchaseResponse {
        let body = try await request.decode(as: PurchaseRequest.self, context: context)
        if let order = body.orderID, order.isEmpty || order.unicodeScalars.count > 64 {
            throw TallyAPIError(.invalidRequest, "order_id must be 1 to 64 characters")
        }
        let verified = try await checker.transaction(body.signedTransaction)
        let response = try await storage.deliver(verified, jws: body.signedTransaction, presenter: context.user, orderID: body.orderID)
        if !response.replayed {
            for grant in response.granted { metrics.increment("tally_grants_total", ["currency": grant.currency], by: grant.amount) }
        }
        return response
    }

    /// Each transaction's outcome, then the balances and entitlements after all of them.
    func restore(_ request: Request, context: UserRequestContext) async throws -> RestoreResponse {
        let body = try await request.decode(as: RestoreRequest.self, context: context)
        guard body.signedTransactions.count <= 100 else {
            throw TallyAPIError(.invalidRequest, "restore at most 100 transactions at a time")
        }
        var results: [RestoreResponse.Item] = []
        for jws in body.signedTransactions { results.append(await restore(jws, context: context)) }
        let account = try await storage.account(user: context.user)
        return RestoreResponse(results: results, balances: account.balances, entitlements: account.entitlements)
    }

    /// One transaction of a restore. Each is its own database transaction: those delivered
    /// stand, a failure is reported in its item, and the restore goes on.
    func restore(_ jws: String, context: UserRequestContext) async -> RestoreResponse.Item {
        do {
            let response = try await storage.deliver(try await checker.transaction(jws), jws: jws, presenter: context.user, orderID: nil)
            return RestoreResponse.Item(transactionID: response.transactionID, purchase: response, error: nil)
        } catch let error as TallyAPIError {
            return RestoreResponse.Item(transactionID: nil, purchase: nil, error: error.detail)
        } catch {
            context.logger.error("restore item failed", metadata: ["error": "\(error)"])
            let failure = TallyAPIError(.internalError, "this transaction could not be delivered; retry")
            return RestoreResponse.Item(transactionID: nil, purchase: nil, error: failure.detail)
        }
    }
}
