/// A stable error code of the Tally server API, shared by the server and the client SDK.
///
/// Codes never change meaning and are never reused. The server answers
/// `{"error":{"code","message","request_id"}}` with one of them.
public struct TallyErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// 400: the body is not JSON, or not of the expected shape or types.
    public static let invalidRequest = Self(rawValue: "invalid_request")
    /// 400: an amount is zero, negative, too large, or not an integer.
    public static let invalidAmount = Self(rawValue: "invalid_amount")
    /// 400: the currency is not in the catalog.
    public static let unknownCurrency = Self(rawValue: "unknown_currency")
    /// 400 / 404: the product is not in the catalog.
    public static let unknownProduct = Self(rawValue: "unknown_product")
    /// 400: an idempotency key is missing or longer than 128 characters.
    public static let invalidIdempotencyKey = Self(rawValue: "invalid_idempotency_key")
    /// 401: no valid user token or secret key.
    public static let unauthorized = Self(rawValue: "unauthorized")
    /// 403: not enough of a currency; the error carries what is available.
    public static let insufficientCredits = Self(rawValue: "insufficient_credits")
    /// 404: no such resource for this caller.
    public static let notFound = Self(rawValue: "not_found")
    /// 409: the transaction's app account token belongs to another user.
    public static let transactionBelongsToAnotherUser = Self(rawValue: "transaction_belongs_to_another_user")
    /// 409: the idempotency key was used before with a different request.
    public static let idempotencyKeyReused = Self(rawValue: "idempotency_key_reused")
    /// 409: the order is for another product, or already closed.
    public static let orderMismatch = Self(rawValue: "order_mismatch")
    /// 409: the reservation is committed, released or expired.
    public static let reservationClosed = Self(rawValue: "reservation_closed")
    /// 400: more was used than the reservation holds.
    public static let usedExceedsReservation = Self(rawValue: "used_exceeds_reservation")
    /// 409: a user with this app user id exists with other details.
    public static let conflict = Self(rawValue: "conflict")
    /// 422: the signed data did not verify; the verification code is in the message.
    public static let verificationFailed = Self(rawValue: "verification_failed")
    /// 503: the signed data could not be verified now (revocation responder unreachable); retry.
    public static let verificationUnavailable = Self(rawValue: "verification_unavailable")
    /// 422: the app receipt verified, but lists no in-app purchase with the transaction id given.
    public static let transactionNotInReceipt = Self(rawValue: "transaction_not_in_receipt")
    /// 404: the App Store has no transaction with the id given.
    public static let transactionNotFound = Self(rawValue: "transaction_not_found")
    /// 422: a bare transaction id needs the App Store Server API, which this server is not set up for.
    public static let appleNotConfigured = Self(rawValue: "apple_not_configured")
    /// 503: the App Store Server API did not answer, or not as it should; retry later.
    public static let appleUnavailable = Self(rawValue: "apple_unavailable")
    /// 413: the request body is larger than the server accepts.
    public static let payloadTooLarge = Self(rawValue: "payload_too_large")
    /// 429: too many requests; retry after the `Retry-After` header.
    public static let rateLimited = Self(rawValue: "rate_limited")
    /// 405: the method is not allowed on this path.
    public static let methodNotAllowed = Self(rawValue: "method_not_allowed")
    /// 500: a fault in the server; the request may be retried.
    public static let internalError = Self(rawValue: "internal_error")
    /// 503: the server is shutting down or its database is unavailable; retry.
    public static let unavailable = Self(rawValue: "unavailable")
}
