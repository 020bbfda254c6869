public import Foundation

/// What went wrong in a purchase, a restore or a spend: a stable ``Code`` for code to act on,
/// a ``reason`` for logs, and a ``presentation(in:)`` for people, in English and Ukrainian.
///
/// Two errors are equal when their codes are. A customer who cancels the payment sheet gets
/// no error at all: ``PurchaseManager/purchase(_:quantity:promotionalOffer:)`` returns `.cancelled`.
///
/// ```swift
/// do {
///     try await manager.purchase("com.tally.zorya.report.career")
/// } catch let error as TallyError where error.code == .insufficientCredits {
///     showPaywall()
/// } catch let error as TallyError {
///     let alert = error.presentation(in: .ukrainian)   // title, message, "Спробувати ще раз"
/// }
/// ```
public struct TallyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable, machine-readable reason.
    public let code: Code
    /// What exactly happened, in English, for logs and bug reports.
    public let reason: String
    /// For ``Code/insufficientCredits``: the currency that is short.
    public let currency: String?
    /// For ``Code/insufficientCredits``: how much of it can be spent now.
    public let available: Int64?
    /// For errors of the Tally server: its request id, to find the request in its logs.
    public let requestID: String?
    /// For ``Code/rateLimited``: how long the server asked to wait, in seconds.
    public let retryAfter: TimeInterval?
    /// The finer, stable code behind ``code`` where there is one: for ``Code/verificationFailed``
    /// on the device, the verifier's (`wrong_bundle_id`, `untrusted_chain`, …, or
    /// `no_receipt_verifier`), which says which setup to fix.
    public let detail: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - reason: the detail, for logs.
    ///   - currency: the currency that is short, for ``Code/insufficientCredits``.
    ///   - available: what can be spent now, for ``Code/insufficientCredits``.
    ///   - requestID: the server's request id.
    ///   - retryAfter: how long the server asked to wait, in seconds.
    ///   - detail: the finer code behind `code`, if any.
    public init(
        _ code: Code, _ reason: String, currency: String? = nil, available: Int64? = nil, requestID: String? = nil,
        retryAfter: TimeInterval? = nil, detail: String? = nil
    ) {
        self.retryAfter = retryAfter
        self.detail = detail
        self.code = code
        self.reason = reason
        self.currency = currency
        self.available = available
        self.requestID = requestID
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Whether doing the same again later may succeed without anything else changing: the
    /// network, a server fault, a busy server. The purchase pipeline retries these by itself.
    public var isTransient: Bool {
        [.networkUnavailable, .networkError, .serverUnavailable, .rateLimited, .verificationUnavailable, .storeUnavailable, .responseNotTrusted]
            .contains(code)
    }

    /// A stable error code. Codes never change meaning and are never reused.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The device is offline: a purchase is not started.
        public static let networkUnavailable = Self(rawValue: "network_unavailable")
        /// A request failed on the way (timeout, connection lost); it is retried.
        public static let networkError = Self(rawValue: "network_error")
        /// The server answered 5xx or could not be understood; it is retried.
        public static let serverUnavailable = Self(rawValue: "server_unavailable")
        /// The server asked to slow down (429); it is retried after the time it gave.
        public static let rateLimited = Self(rawValue: "rate_limited")
        /// The signed transaction did not verify; it is not credited.
        public static let verificationFailed = Self(rawValue: "verification_failed")
        /// The signed transaction could not be verified now (a revocation check was unreachable); it is retried.
        public static let verificationUnavailable = Self(rawValue: "verification_unavailable")
        /// The product is not sold, not in the catalog, or could not be loaded.
        public static let productNotFound = Self(rawValue: "product_not_found")
        /// The store refused the payment.
        public static let paymentDeclined = Self(rawValue: "payment_declined")
        /// The App Store failed for a reason of its own (an unknown or system error); nothing
        /// was charged, and it may work a moment later.
        public static let storeUnavailable = Self(rawValue: "store_unavailable")
        /// The customer is not eligible for the offer (an introductory or promotional offer
        /// already used, say): a normal state, not a bug; offer the regular price.
        public static let offerNotEligible = Self(rawValue: "offer_not_eligible")
        /// The account may not make payments (Screen Time, parental controls).
        public static let paymentNotAllowed = Self(rawValue: "payment_not_allowed")
        /// Restoring purchases failed.
        public static let restoreFailed = Self(rawValue: "restore_failed")
        /// Not enough of a currency; ``TallyError/available`` says how much there is.
        public static let insufficientCredits = Self(rawValue: "insufficient_credits")
        /// A purchase of this product is already under way.
        public static let purchaseInProgress = Self(rawValue: "purchase_in_progress")
        /// An unused credit of this kind exists: use it before buying another.
        public static let unusedCreditExists = Self(rawValue: "unused_credit_exists")
        /// The transaction belongs to another user of the app.
        public static let transactionBelongsToAnotherUser = Self(rawValue: "transaction_belongs_to_another_user")
        /// The order could not be created or does not match the purchase.
        public static let orderFailed = Self(rawValue: "order_failed")
        /// The reservation was already committed, released or has expired.
        public static let reservationClosed = Self(rawValue: "reservation_closed")
        /// The request was refused as malformed (amount, key or currency); a bug in the app.
        public static let invalidRequest = Self(rawValue: "invalid_request")
        /// The user token is missing or no longer accepted.
        public static let unauthorized = Self(rawValue: "unauthorized")
        /// The device's database could not be read or written.
        public static let storageFailed = Self(rawValue: "storage_failed")
        /// The manager has not been started, or was stopped.
        public static let notStarted = Self(rawValue: "not_started")
        /// The server's answer did not carry a valid signature while ``ServerDelivery`` enforces
        /// them: nothing was taken from it; a purchase is delivered again later.
        public static let responseNotTrusted = Self(rawValue: "response_not_trusted")
        /// The SDK was set up in a way that would refuse every purchase (an on-device ledger
        /// without a receipt verifier where StoreKit 1 can run, no bundle identifier): refused
        /// when the object is made, before anyone pays. A bug in the app.
        public static let configurationInvalid = Self(rawValue: "configuration_invalid")
    }
}

extension TallyError: LocalizedError {
    /// The title and message in the device's language (English or Ukrainian).
    public var errorDescription: String? {
        let presentation = presentation(in: .preferred)
        return "\(presentation.title). \(presentation.message)"
    }

    public var failureReason: String? { reason }

    public var recoverySuggestion: String? { presentation(in: .preferred).message }
}
