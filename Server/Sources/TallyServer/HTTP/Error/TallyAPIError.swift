public import TallyCore

/// A failure of an API request: a stable code, which decides the HTTP status, and a message
/// for developers.
///
/// The HTTP layer throws it for what is wrong with the request itself (`invalid_request`,
/// `unauthorized`); storage refuses what cannot be done (`insufficient_credits`,
/// `reservation_closed`) with a ``StorageError``, answered as the error of the same code
/// (``init(_:)-(StorageError)``); the server's middleware answers every other error as one as
/// well, so the API has one error and one error body. Equal by code.
///
/// ```swift
/// var error = TallyAPIError(.insufficientCredits, "not enough credits: 2 available")
/// error.available = 2
/// error.currency = "credits"
/// // answered 403 {"error":{"available":2,"code":"insufficient_credits","currency":"credits",…}}
/// ```
public struct TallyAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code; its ``Code/status`` is the answer's HTTP status.
    public let code: Code
    /// What went wrong, for developers (English).
    public let message: String
    /// For `insufficient_credits`: how much of the currency is available.
    public var available: Int64?
    /// For `insufficient_credits`: the currency.
    public var currency: String?
    /// For `verification_failed`: the verifier's code, such as `bad_signature`.
    public var verificationCode: String?
    /// For `rate_limited`: the seconds after which a request will be taken (`Retry-After`).
    public var retryAfter: Int?
    /// For `method_not_allowed`: the methods the path has (`Allow`), such as `GET, HEAD`.
    public var allowedMethods: String?
    /// The file that threw it, for logs.
    public let file: String
    /// The line that threw it, for logs.
    public let line: UInt

    /// Creates an error.
    /// - Parameters:
    ///   - code: the stable code, which decides the status.
    ///   - message: what went wrong, for developers.
    ///   - file: the file that throws it.
    ///   - line: the line that throws it.
    public init(_ code: Code, _ message: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// The error as the body's `error` member writes it, without the request's identifier.
    public var detail: APIErrorBody.Detail {
        APIErrorBody.Detail(
            code: code.errorCode, message: message, available: available, currency: currency, verificationCode: verificationCode)
    }

    /// `code: message`, for logs.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code, the only part equality looks at.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
