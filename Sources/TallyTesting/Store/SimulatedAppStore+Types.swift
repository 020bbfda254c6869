public import Foundation
public import TallyCore

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// A transaction as the simulated store hands it out: the JWS, and its payload for convenience.
    ///
    /// The JWS is what a real app gets from StoreKit (`Transaction.jwsRepresentation`) and what
    /// a server must verify; ``payload`` is the same data, unsigned, for tests to read.
    public struct SignedTransaction: Sendable, Hashable {
        /// The compact JWS, signed by the store's certificate authority.
        public let jws: String
        /// The payload inside ``jws``.
        public let payload: TransactionPayload

        /// The transaction's identifier.
        public var transactionID: String { payload.transactionID ?? "" }
        /// The product's identifier.
        public var productID: String { payload.productID ?? "" }
    }

    /// How a purchase is asked for.
    public struct PurchaseOptions: Sendable, Hashable {
        /// The app's UUID for its user, carried in the transaction as `appAccountToken`.
        public var appAccountToken: UUID?
        /// How many units of a consumable, 1 to 10.
        public var quantity: Int
        /// The identifier of a promotional offer of the subscription.
        public var promotionalOfferID: String?
        /// What the simulated customer and store do; ``SimulatedAppStore/Outcome/automatic`` follows the store's settings.
        public var outcome: SimulatedAppStore.Outcome

        /// - Parameters:
        ///   - appAccountToken: the app's UUID for its user.
        ///   - quantity: units of a consumable, 1 to 10.
        ///   - promotionalOfferID: a promotional offer of the subscription.
        ///   - outcome: what happens; by default, what the store's settings say.
        public init(appAccountToken: UUID? = nil, quantity: Int = 1, promotionalOfferID: String? = nil, outcome: SimulatedAppStore.Outcome = .automatic) {
            self.appAccountToken = appAccountToken
            self.quantity = quantity
            self.promotionalOfferID = promotionalOfferID
            self.outcome = outcome
        }
    }

    /// What happens to one purchase.
    public enum Outcome: Sendable, Hashable, Codable {
        /// Whatever the store's settings say: Ask to Buy, interruptions and simulated errors, or success.
        case automatic
        /// The customer confirms and pays.
        case success
        /// The customer dismisses the payment sheet.
        case userCancelled
        /// Ask to Buy: a parent must approve first.
        case askToBuy
        /// The purchase needs the customer's action outside the app (accept new terms, say) first.
        case interrupted
        /// The purchase fails with this error.
        case failure(SimulatedAppStoreError.Code)
        /// The store returns a transaction whose signature does not verify, as StoreKit's `.unverified`.
        case unverified
    }

    /// The result of a purchase, as StoreKit's `Product.PurchaseResult`.
    public enum PurchaseResult: Sendable, Hashable {
        /// Paid: the transaction, to verify, deliver and finish.
        case success(SimulatedAppStore.SignedTransaction)
        /// The customer cancelled; nothing was charged.
        case userCancelled
        /// Waiting for Ask to Buy approval or for the customer to resolve an interruption; the
        /// transaction, if any, arrives later through ``SimulatedAppStore/updates()``.
        case pending(SimulatedAppStore.PendingPurchase)
    }

    /// A purchase waiting for Ask to Buy approval or for an interruption to be resolved.
    public struct PendingPurchase: Sendable, Hashable, Codable, Identifiable {
        /// Why the purchase is waiting.
        public enum Reason: String, Sendable, Hashable, Codable {
            /// Ask to Buy: waiting for a parent.
            case askToBuy = "ask_to_buy"
            /// Interrupted: waiting for the customer's action outside the app.
            case interrupted
        }

        /// The pending purchase's identifier, used to approve, decline or resolve it.
        public let id: String
        /// Why it waits.
        public let reason: Reason
        /// The product asked for.
        public let productID: String
        /// The app account token of the request.
        public let appAccountToken: UUID?
        /// The quantity of the request.
        public let quantity: Int
        /// The promotional offer of the request.
        public let promotionalOfferID: String?
        /// When it was asked for.
        public let requestedAt: Date
        /// For a StoreKit 1 payment, the device (lowercase hexadecimal) whose receipt the
        /// purchase updates once it completes.
        var storeKit1Device: String?
    }

    /// A one-line reason for a revocation, as Apple sends it.
    public struct Revocation: Sendable, Hashable {
        /// Why.
        public var reason: RevocationReason
        /// How.
        public var type: RevocationType
        /// For a prorated refund, the refunded share in thousandths of a percent.
        public var percentage: Int?

        /// - Parameters:
        ///   - reason: why; `.otherReason` by default.
        ///   - type: how; a full refund by default.
        ///   - percentage: the refunded share of a prorated refund, in thousandths of a percent.
        public init(reason: RevocationReason = .otherReason, type: RevocationType = .refundFull, percentage: Int? = nil) {
            self.reason = reason
            self.type = type
            self.percentage = percentage
        }
    }
}
