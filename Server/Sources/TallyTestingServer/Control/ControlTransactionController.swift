import Foundation
import Hummingbird
import TallyCore
import TallyTesting

/// Transactions after the purchase: the history, the current entitlements, finishing,
/// refunds and their reversal, consumption requests, and Family Sharing.
struct ControlTransactionController: Sendable {
    let store: SimulatedAppStore

    var endpoints: RouteCollection<ControlRequestContext> {
        RouteCollection(context: ControlRequestContext.self)
            .get("transactions") { request, _ in try await transactions(unfinished: request.uri.queryParameters["unfinished"] == "true") }
            .get("entitlements") { _, _ in try await store.currentEntitlements().map { TransactionBody($0) } }
            .post("transactions/:id/finish") { _, context in
                try await store.finish(transactionID: context.parameters.require("id"))
                return EmptyBody()
            }
            .post("transactions/:id/refund") { request, context in
                let body = try await request.decode(as: RefundBody.self, context: context)
                return TransactionBody(try await store.refund(transactionID: context.parameters.require("id"), revocation: try body.revocation()))
            }
            .post("transactions/:id/reverse-refund") { _, context in
                TransactionBody(try await store.reverseRefund(transactionID: context.parameters.require("id")))
            }
            .post("transactions/:id/decline-refund") { _, context in
                try await store.declineRefund(transactionID: context.parameters.require("id"))
                return EmptyBody()
            }
            .post("transactions/:id/consumption-request") { _, context in
                try await store.requestConsumptionInformation(transactionID: context.parameters.require("id"))
                return EmptyBody()
            }
            .get("transactions/:id/consumption") { _, context in
                ConsumptionBody(count: await store.consumptionInformation(transactionID: try context.parameters.require("id")).count)
            }
            .post("transactions/:id/share-with-family") { _, context in
                TransactionBody(try await store.shareWithFamily(transactionID: context.parameters.require("id")))
            }
            .post("transactions/:id/revoke-family-sharing") { _, context in
                TransactionBody(try await store.revokeFamilySharing(transactionID: context.parameters.require("id")))
            }
    }

    /// Every transaction, finished consumables included, or only the unfinished ones.
    func transactions(unfinished: Bool) async throws -> [TransactionBody] {
        let transactions = unfinished ? try await store.unfinishedTransactions() : try await store.history(includingFinishedConsumables: true)
        var bodies: [TransactionBody] = []
        for transaction in transactions {
            bodies.append(TransactionBody(transaction, finished: await store.isFinished(transactionID: transaction.transactionID)))
        }
        return bodies
    }

    /// How many times the app's server sent consumption information for the transaction.
    struct ConsumptionBody: ResponseEncodable { var count: Int }

    /// A refund's details; an empty body is a full refund for another reason.
    struct RefundBody: ControlOptionalBody {
        /// app_issue or other.
        var reason: String?
        /// full, prorated or family_revoke.
        var type: String?
        var percentage: Int?

        func revocation() throws -> SimulatedAppStore.Revocation {
            let reason: RevocationReason =
                switch self.reason {
                case nil, "other": .otherReason
                case "app_issue": .appIssue
                default: throw ControlError.invalid("reason must be app_issue or other")
                }
            let type: RevocationType =
                switch self.type {
                case nil, "full": .refundFull
                case "prorated": .refundProrated
                case "family_revoke": .familyRevoke
                default: throw ControlError.invalid("type must be full, prorated or family_revoke")
                }
            return SimulatedAppStore.Revocation(reason: reason, type: type, percentage: percentage)
        }
    }
}
