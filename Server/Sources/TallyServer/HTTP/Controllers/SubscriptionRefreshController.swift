import Hummingbird
import TallyCore

/// `POST /v1/me/subscriptions/refresh`: asks Apple for the state of each of the caller's
/// subscriptions (Get All Subscription Statuses) and takes it in, as the notifications would
/// have, so a renewal, an expiry or a revocation whose notification was lost reaches `GET /v1/me`
/// now. Limited per user and per address, as purchases are.
struct SubscriptionRefreshController {
    let users: UserStore
    let notifications: NotificationStore
    let apple: AppStoreServerClient?

    var endpoints: RouteCollection<UserRequestContext> {
        RouteCollection(context: UserRequestContext.self)
            .post("subscriptions/refresh", use: refresh)
    }

    /// The account after the refresh.
    func refresh(_ request: Request, context: UserRequestContext) async throws -> AccountResponse {
        guard let apple else {
            throw TallyAPIError(.appleNotConfigured, "this server does not ask Apple (no App Store Server API key)")
        }
        // However many subscriptions the user has, Apple is asked within one budget.
        try await apple.sharingBudget {
            var seen = Set<String>()
            for original in try await notifications.subscriptionOriginals(user: context.user) where !seen.contains(original) {
                let states: [AppStoreServerClient.SubscriptionState]
                // One catch-all clause with an `if`, not `catch where`, which Swift 6.3.1's SIL passes crash on in some functions.
                do {
                    states = try await apple.subscriptionStatuses(original)
                } catch {
                    // Inside the closure the error is untyped; it is the client's.
                    if (error as? AppStoreServerAPIError)?.kind == .notFound { continue }
                    context.logger.notice("subscription refresh failed", metadata: ["original_transaction_id": "\(original)", "error": "\(error)"])
                    throw TallyAPIError(.appleUnavailable, "the App Store Server API did not answer as it should; retry later")
                }
                // One answer covers every subscription of the customer: each is taken in once.
                seen.formUnion(states.compactMap(\.transaction.verified.payload.originalTransactionID))
                try await notifications.recordFromApple(states)
            }
        }
        return try await users.account(user: context.user)
    }
}
