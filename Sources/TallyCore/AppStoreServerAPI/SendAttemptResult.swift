/// How an attempt to send a notification went (`sendAttemptResult`).
public struct SendAttemptResult: AppStoreRawValue {
    /// The value as the App Store sent it.
    public let rawValue: String
    /// Wraps a value as the App Store sent it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The App Store's value `SUCCESS`: the server answered with HTTP 200.
    public static let success = Self(rawValue: "SUCCESS")
    /// The App Store's value `TIMED_OUT`.
    public static let timedOut = Self(rawValue: "TIMED_OUT")
    /// The App Store's value `TLS_ISSUE`.
    public static let tlsIssue = Self(rawValue: "TLS_ISSUE")
    /// The App Store's value `CIRCULAR_REDIRECT`.
    public static let circularRedirect = Self(rawValue: "CIRCULAR_REDIRECT")
    /// The App Store's value `NO_RESPONSE`.
    public static let noResponse = Self(rawValue: "NO_RESPONSE")
    /// The App Store's value `SOCKET_ISSUE`.
    public static let socketIssue = Self(rawValue: "SOCKET_ISSUE")
    /// The App Store's value `UNSUPPORTED_CHARSET`.
    public static let unsupportedCharset = Self(rawValue: "UNSUPPORTED_CHARSET")
    /// The App Store's value `INVALID_RESPONSE`.
    public static let invalidResponse = Self(rawValue: "INVALID_RESPONSE")
    /// The App Store's value `PREMATURE_CLOSE`.
    public static let prematureClose = Self(rawValue: "PREMATURE_CLOSE")
    /// The App Store's value `UNSUCCESSFUL_HTTP_RESPONSE_CODE`: the server answered, but not with 200.
    public static let unsuccessfulHTTPResponseCode = Self(rawValue: "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
    /// The App Store's value `OTHER`.
    public static let other = Self(rawValue: "OTHER")
}
