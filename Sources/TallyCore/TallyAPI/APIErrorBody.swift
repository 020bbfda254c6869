/// The error body of every failed request.
public struct APIErrorBody: Codable, Hashable, Sendable {
    /// The error.
    public var error: Detail

    /// What went wrong.
    public struct Detail: Codable, Hashable, Sendable {
        /// The stable code.
        public var code: TallyErrorCode
        /// A sentence for developers (English).
        public var message: String
        /// The request's identifier, also in the `X-Request-Id` header and the server's logs.
        public var requestID: String?
        /// For `insufficient_credits`: how much of the currency is available now.
        public var available: Int64?
        /// For `insufficient_credits`: the currency.
        public var currency: String?
        /// For `verification_failed`: the verifier's code, such as `bad_signature`.
        public var verificationCode: String?

        /// Creates a value with every field.
        public init(
            code: TallyErrorCode, message: String, requestID: String? = nil, available: Int64? = nil, currency: String? = nil, verificationCode: String? = nil
        ) {
            self.code = code
            self.message = message
            self.requestID = requestID
            self.available = available
            self.currency = currency
            self.verificationCode = verificationCode
        }
    }

    /// Wraps a detail.
    public init(error: Detail) {
        self.error = error
    }

    /// Creates an error body.
    public init(code: TallyErrorCode, message: String, requestID: String? = nil) {
        self.error = Detail(code: code, message: message, requestID: requestID)
    }
}
