public import Foundation
public import TallyCore

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
    public var transactionID: String { payload.transactionId ?? "" }
    /// The product's identifier.
    public var productID: String { payload.productId ?? "" }
}

/// How a purchase is asked for.
public struct PurchaseOptions: Sendable, Hashable {
    /// The app's UUID for its user, carried in the transaction as `appAccountToken`.
    public var appAccountToken: UUID?
    /// How many units of a consumable, 1 to 10.
    public var quantity: Int
    /// The identifier of a promotional offer of the subscription.
    public var promotionalOfferID: String?
    /// What the simulated customer and store do; ``SimulatedOutcome/automatic`` follows the store's settings.
    public var outcome: SimulatedOutcome

    /// - Parameters:
    ///   - appAccountToken: the app's UUID for its user.
    ///   - quantity: units of a consumable, 1 to 10.
    ///   - promotionalOfferID: a promotional offer of the subscription.
    ///   - outcome: what happens; by default, what the store's settings say.
    public init(appAccountToken: UUID? = nil, quantity: Int = 1, promotionalOfferID: String? = nil, outcome: SimulatedOutcome = .automatic) {
        self.appAccountToken = appAccountToken
        self.quantity = quantity
        self.promotionalOfferID = promotionalOfferID
        self.outcome = outcome
    }
}

/// What happens to one purchase.
public enum SimulatedOutcome: Sendable, Hashable, Codable {
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
    case failure(StoreError.Code)
    /// The store returns a transaction whose signature does not verify, as StoreKit's `.unverified`.
    case unverified
}

/// The result of a purchase, as StoreKit's `Product.PurchaseResult`.
public enum PurchaseResult: Sendable, Hashable {
    /// Paid: the transaction, to verify, deliver and finish.
    case success(SignedTransaction)
    /// The customer cancelled; nothing was charged.
    case userCancelled
    /// Waiting for Ask to Buy approval or for the customer to resolve an interruption; the
    /// transaction, if any, arrives later through ``SimulatedAppStore/updates()``.
    case pending(PendingPurchase)
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
}

/// A failure of the simulated store, with a stable code; equal by code.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code.
    public let code: Code
    /// What exactly went wrong.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors are equal when their codes are; the message is for people.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable store error code.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The store could not be reached.
        public static let networkError = Self(rawValue: "network_error")
        /// The payment method was declined.
        public static let paymentDeclined = Self(rawValue: "payment_declined")
        /// The account may not make payments (parental controls, restrictions).
        public static let paymentNotAllowed = Self(rawValue: "payment_not_allowed")
        /// The product is not for sale in this storefront, or does not exist.
        public static let productUnavailable = Self(rawValue: "product_unavailable")
        /// The quantity is not 1 to 10, or more than 1 for a product that is not consumable.
        public static let invalidQuantity = Self(rawValue: "invalid_quantity")
        /// The promotional offer does not exist for the product.
        public static let invalidOffer = Self(rawValue: "invalid_offer")
        /// No transaction, subscription or pending purchase has that identifier.
        public static let notFound = Self(rawValue: "not_found")
        /// The operation does not apply in the current state (refunding a refunded transaction, say).
        public static let invalidState = Self(rawValue: "invalid_state")
        /// The store's state file could not be read or written.
        public static let storage = Self(rawValue: "storage")
    }
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
