/// What storage refuses, in its own terms: a stable code, a message for developers and, for
/// `insufficient_credits`, what is available.
///
/// Storage knows nothing of HTTP. The HTTP layer answers a `StorageError` as the API error of
/// the same code (one mapping, beside the API's error type in `HTTP/Error/`), so the status,
/// code and message a client reads are the ones written here.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why storage refused: each code is also an API error code, of the same name.
    public enum Code: String, CaseIterable, Hashable, Sendable {
        /// An input is out of range or malformed (a reason too long, a quantity the App Store never sells).
        case invalidRequest = "invalid_request"
        /// An amount is zero, negative or too large.
        case invalidAmount = "invalid_amount"
        /// The currency is not in the catalog.
        case unknownCurrency = "unknown_currency"
        /// The product is not in the catalog.
        case unknownProduct = "unknown_product"
        /// An idempotency key is empty or longer than 128 characters.
        case invalidIdempotencyKey = "invalid_idempotency_key"
        /// Not enough of a currency; ``StorageError/available`` says how much there is.
        case insufficientCredits = "insufficient_credits"
        /// No such record for this caller.
        case notFound = "not_found"
        /// The transaction belongs to another user.
        case transactionBelongsToAnotherUser = "transaction_belongs_to_another_user"
        /// The idempotency key was used before with a different request.
        case idempotencyKeyReused = "idempotency_key_reused"
        /// The order is for another product, or already closed.
        case orderMismatch = "order_mismatch"
        /// The reservation is committed, released or expired.
        case reservationClosed = "reservation_closed"
        /// More was used than the reservation holds.
        case usedExceedsReservation = "used_exceeds_reservation"
        /// The record is in a state that refuses the change now (a webhook endpoint disabled, a secret rotation under way).
        case conflict
    }

    /// The stable code.
    public let code: Code
    /// What was refused, for developers (English).
    public let message: String
    /// For `insufficient_credits`: how much of the currency is available.
    public var available: Int64?
    /// For `insufficient_credits`: the currency.
    public var currency: String?
    /// The file that threw it, for logs.
    public let file: String
    /// The line that threw it, for logs.
    public let line: UInt

    /// Creates a refusal.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: what was refused, for developers.
    ///   - file: the file that throws it.
    ///   - line: the line that throws it.
    public init(_ code: Code, _ message: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// Not enough `currency`: `available` of it can be spent.
    static func insufficient(_ currency: String, available: Int64, file: String = #fileID, line: UInt = #line) -> Self {
        var error = Self(.insufficientCredits, "not enough \(currency): \(available) available", file: file, line: line)
        error.available = available
        error.currency = currency
        return error
    }

    /// `code: message`, for logs.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Refusals are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code, the only part equality looks at.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
