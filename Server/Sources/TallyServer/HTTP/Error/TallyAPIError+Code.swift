public import Hummingbird
public import TallyCore

extension TallyAPIError {
    /// The codes this server answers with, each with its HTTP status.
    ///
    /// On the wire a code is a `TallyErrorCode`, a struct over its string so that
    /// clients read the codes of newer servers too. The server needs the opposite guarantee:
    /// every code it can throw has a status it declared. So here the codes are a closed
    /// enumeration whose ``status`` is an exhaustive `switch` without `default:`: a new code
    /// does not compile until its status is written down. `ErrorCodeTests` checks that the
    /// cases are exactly the codes `TallyErrorCode` declares and the OpenAPI document lists.
    public enum Code: String, CaseIterable, Hashable, Sendable {
        /// The body is not JSON, or not of the expected shape or types; or a parameter is out of range.
        case invalidRequest = "invalid_request"
        /// An amount is zero, negative, too large, or not an integer.
        case invalidAmount = "invalid_amount"
        /// The currency is not in the catalog.
        case unknownCurrency = "unknown_currency"
        /// The product is not in the catalog.
        case unknownProduct = "unknown_product"
        /// An idempotency key is missing or longer than 128 characters.
        case invalidIdempotencyKey = "invalid_idempotency_key"
        /// No valid user token or secret key.
        case unauthorized
        /// Not enough of a currency; the error carries what is available.
        case insufficientCredits = "insufficient_credits"
        /// No such resource for this caller, or no such endpoint.
        case notFound = "not_found"
        /// The transaction's app account token belongs to another user.
        case transactionBelongsToAnotherUser = "transaction_belongs_to_another_user"
        /// The idempotency key was used before with a different request.
        case idempotencyKeyReused = "idempotency_key_reused"
        /// The order is for another product, or already closed.
        case orderMismatch = "order_mismatch"
        /// The reservation is committed, released or expired.
        case reservationClosed = "reservation_closed"
        /// More was used than the reservation holds.
        case usedExceedsReservation = "used_exceeds_reservation"
        /// A user with this app user id exists with other details.
        case conflict
        /// The signed data did not verify; ``TallyAPIError/verificationCode`` says why.
        case verificationFailed = "verification_failed"
        /// The signed data could not be verified now (a revocation responder did not answer); retry.
        case verificationUnavailable = "verification_unavailable"
        /// The app receipt verified, but lists no in-app purchase with the transaction id given.
        case transactionNotInReceipt = "transaction_not_in_receipt"
        /// The App Store has no transaction with the id given.
        case transactionNotFound = "transaction_not_found"
        /// A bare transaction id needs the App Store Server API, which this server is not set up for.
        case appleNotConfigured = "apple_not_configured"
        /// The App Store Server API did not answer, or not as it should; retry later.
        case appleUnavailable = "apple_unavailable"
        /// The request body is larger than the server accepts.
        case payloadTooLarge = "payload_too_large"
        /// Too many requests; retry after `Retry-After`.
        case rateLimited = "rate_limited"
        /// The method is not allowed on this path; `Allow` names those that are.
        case methodNotAllowed = "method_not_allowed"
        /// A fault in the server; the request may be retried.
        case internalError = "internal_error"
        /// The database does not answer, or the server is shutting down; retry.
        case unavailable

        /// The HTTP status of an answer with this code.
        public var status: HTTPResponse.Status {
            switch self {
            case .invalidRequest, .invalidAmount, .unknownCurrency, .unknownProduct, .invalidIdempotencyKey, .usedExceedsReservation:
                .badRequest
            case .unauthorized: .unauthorized
            case .insufficientCredits: .forbidden
            case .notFound, .transactionNotFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .transactionBelongsToAnotherUser, .idempotencyKeyReused, .orderMismatch, .reservationClosed, .conflict: .conflict
            case .payloadTooLarge: .contentTooLarge
            case .verificationFailed, .transactionNotInReceipt, .appleNotConfigured: .unprocessableContent
            case .rateLimited: .tooManyRequests
            case .internalError: .internalServerError
            case .verificationUnavailable, .unavailable, .appleUnavailable: .serviceUnavailable
            }
        }

        /// The code as the error body carries it.
        public var errorCode: TallyErrorCode { TallyErrorCode(rawValue: rawValue) }
    }
}
