import Foundation

/// A failure of the simulated store, with a stable code; equal by code.
public struct SimulatedAppStoreError: Error, Hashable, Sendable, CustomStringConvertible {
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
