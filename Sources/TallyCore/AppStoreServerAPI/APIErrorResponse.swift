/// The body of an App Store Server API error answer (4xx and 5xx).
///
/// ```swift
/// let error = try AppStoreJSON.decoder().decode(APIErrorResponse.self, from: body)
/// error.code == .rateLimitExceeded
/// error.errorMessage // "Rate limit exceeded."
/// ```
public struct APIErrorResponse: Codable, Hashable, Sendable {
    /// The error code, as sent; see ``code``.
    public var errorCode: Int64?
    /// A description of the error, in English, for logs.
    public var errorMessage: String?

    /// An empty response; set the fields you need.
    public init() {}

    /// A response with `code` and `message`.
    /// - Parameters:
    ///   - code: The error code.
    ///   - message: A description of the error, for logs.
    public init(code: APIErrorCode, message: String? = nil) {
        errorCode = code.rawValue
        errorMessage = message
    }

    /// ``errorCode`` as a typed code, or `nil` when absent.
    public var code: APIErrorCode? { errorCode.map(APIErrorCode.init(rawValue:)) }
}
