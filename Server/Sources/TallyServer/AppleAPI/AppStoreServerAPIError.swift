public import Foundation
public import TallyCore
public import TallyVerify

/// Why a call to the App Store Server API failed, after the tries it deserved.
public struct AppStoreServerAPIError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: String, Sendable, Hashable {
        /// 401: Apple refused this server's key or token (wrong key, issuer or bundle id).
        case unauthorized
        /// 404: Apple does not know the transaction (or account, app, notification) in any
        /// environment asked.
        case notFound
        /// 429 after every try: Apple's rate limit; ``AppStoreServerAPIError/retryAfter`` says when.
        case rateLimited
        /// 5xx after every try, or no answer at all.
        case unavailable
        /// 400: Apple refused the request as malformed.
        case invalidRequest
        /// The answer could not be read, or its signed data did not verify.
        case invalidAnswer
    }

    /// The kind.
    public let kind: Kind
    /// Apple's error code, when its answer had one.
    public let apiErrorCode: APIErrorCode?
    /// The HTTP status of the last answer, when there was one.
    public let status: Int?
    /// For ``Kind/rateLimited``: how long Apple asked to wait, in seconds, when it said.
    public let retryAfter: TimeInterval?
    /// For ``Kind/invalidAnswer`` from signed data: the verifier's verdict.
    public let verification: VerificationFailure?
    /// What happened, for logs.
    public let reason: String

    init(
        _ kind: Kind, _ reason: String, status: Int? = nil, apiErrorCode: APIErrorCode? = nil, retryAfter: TimeInterval? = nil,
        verification: VerificationFailure? = nil
    ) {
        self.kind = kind
        self.reason = reason
        self.status = status
        self.apiErrorCode = apiErrorCode
        self.retryAfter = retryAfter
        self.verification = verification
    }

    public var description: String {
        "app_store_server_api.\(kind.rawValue): \(reason)" + (apiErrorCode.map { " (errorCode \($0.rawValue))" } ?? "")
    }
}
