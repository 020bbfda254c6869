import Hummingbird
import TallyCore

/// The user's account: `GET /v1/me` (balances, entitlements, subscriptions) and
/// `GET /v1/me/ledger` (every credit and debit, newest first, by pages).
struct AccountController {
    let users: UserStore
    let catalog: TallyCatalog

    var endpoints: RouteCollection<UserRequestContext> {
        RouteCollection(context: UserRequestContext.self)
            .get(use: account)
            .get("ledger", use: ledger)
    }

    /// Balances, entitlements and subscriptions, written by ``ResponseJSON``.
    func account(_ request: Request, context: UserRequestContext) async throws -> AccountResponse {
        try await users.account(user: context.user)
    }

    /// A page of the ledger, filtered by `currency` and `kind`; `limit` and `cursor` page through it.
    func ledger(_ request: Request, context: UserRequestContext) async throws -> LedgerPage {
        let query = request.uri.queryParameters
        let currency = query.string("currency")
        if let currency, !catalog.hasCurrency(currency) { throw TallyAPIError(.unknownCurrency, "no currency \(currency)") }
        return try await users.ledger(
            user: context.user, currency: currency, kind: query.string("kind"), limit: try query.pageSize(), cursor: try query.ledgerCursor())
    }
}
