import Foundation

/// The shapes of text the API takes, each stated once: the server checks input with them and
/// `openapi.yaml` states the same patterns (a test holds the two equal), so a client generated
/// from the document refuses exactly what the server refuses.
/// `@unchecked`: an `NSRegularExpression` is immutable and safe to use from any thread.
struct APIPattern: @unchecked Sendable {
    /// The pattern as `openapi.yaml` writes it (ECMA-262, as JSON Schema reads it).
    let source: String
    private let expression: NSRegularExpression

    private init(_ source: String) {
        self.source = source
        // The patterns are constants of this file; a test compiles each.
        expression = try! NSRegularExpression(pattern: source)
    }

    /// Whether the whole of `text` has this shape.
    func matches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, options: [.anchored], range: range).map { $0.range == range } ?? false
    }

    /// Whether `text` is an identifier as the API takes one (`Identifier` in `openapi.yaml`):
    /// 1 to 128 characters, none a control character (a NUL is no text to PostgreSQL).
    static func isIdentifier(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.unicodeScalars.count <= 128 && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// An absolute http or https URL with a host name or IPv4 address, an optional port, no
    /// credentials, and only RFC 3986's characters (others percent-encoded): what a webhook is
    /// sent to.
    static let webhookURL = APIPattern(
        #"^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9._~-]+(?::[0-9]{1,5})?(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*)?"#
            + #"(?:\?(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?(?:#(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?$"#)

    /// An admin list's cursor as ``AdminCursor/text`` writes it: milliseconds, `_`, and the
    /// last row's identifier.
    static let adminCursor = APIPattern(#"^[0-9]{1,18}_[^\u0000-\u001F\u007F-\u009F]{1,128}$"#)
}
