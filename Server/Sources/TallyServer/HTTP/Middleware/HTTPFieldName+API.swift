import Hummingbird

/// The header fields the server reads and writes beyond those HTTPTypes names.
/// (`HTTPField.Name`, reached through the collection Hummingbird exports.)
extension HTTPFields.Element.Name {
    /// `X-Request-Id`: the request's identifier, the caller's or a new one (see ``RequestID``).
    static let requestID = Self("X-Request-Id")!
    /// `X-Forwarded-For`: the addresses a request came through, as proxies append them.
    static let forwardedFor = Self("X-Forwarded-For")!
    /// `Forwarded` (RFC 7239): the same, in its standard form.
    static let forwarded = Self("Forwarded")!
    /// `X-Content-Type-Options`: `nosniff` on every answer.
    static let contentTypeOptions = Self("X-Content-Type-Options")!
}
