import Foundation
import Hummingbird
import TallyCore
import TallyTesting

/// Subscriptions: their statuses, and what happens to them in time (auto-renew turned off,
/// expiry, a renewal now, a billing failure and its resolution).
struct ControlSubscriptionController: Sendable {
    let store: SimulatedAppStore

    var endpoints: RouteCollection<ControlRequestContext> {
        RouteCollection(context: ControlRequestContext.self)
            .get("subscriptions") { _, _ in try await store.subscriptionStatuses().map(SubscriptionBody.init) }
            .post("subscriptions/:original/auto-renew") { request, context in
                let body = try await request.decode(as: AutoRenewBody.self, context: context)
                try await store.setAutoRenew(originalTransactionID: context.parameters.require("original"), enabled: body.enabled)
                return EmptyBody()
            }
            .post("subscriptions/:original/expire") { _, context in
                try await store.expire(originalTransactionID: context.parameters.require("original"))
                return EmptyBody()
            }
            .post("subscriptions/:original/renew") { _, context in
                try await store.forceRenewal(originalTransactionID: context.parameters.require("original"))
                return EmptyBody()
            }
            .post("subscriptions/:original/fail-next-renewal") { _, context in
                try await store.failNextRenewal(originalTransactionID: context.parameters.require("original"))
                return EmptyBody()
            }
            .post("subscriptions/:original/resolve-billing-issue") { _, context in
                try await store.resolveBillingIssue(originalTransactionID: context.parameters.require("original"))
                return EmptyBody()
            }
    }

    struct AutoRenewBody: Decodable { var enabled: Bool }

    struct SubscriptionBody: ResponseEncodable {
        var groupID: String
        var status: Int32
        var originalTransactionID: String?
        var productID: String
        var signedTransaction: String
        var signedRenewalInfo: String
        init(_ entry: (groupID: String, status: SubscriptionStatus, transaction: SimulatedAppStore.SignedTransaction, renewalInfo: String)) {
            groupID = entry.groupID
            status = entry.status.rawValue
            originalTransactionID = entry.transaction.payload.originalTransactionID
            productID = entry.transaction.productID
            signedTransaction = entry.transaction.jws
            signedRenewalInfo = entry.renewalInfo
        }
    }
}
