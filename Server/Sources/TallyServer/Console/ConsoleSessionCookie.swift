import Crypto
import Foundation
import TallyCore

/// The console's session cookie: its name, and what the database keeps of its value.
public enum ConsoleSessionCookie: Sendable {
    public static let name = "tally_console"

    /// The SHA-256 of a cookie's value, as `console_sessions.token_hash` keeps it.
    public static func hash(_ value: String) -> String {
        SHA256.hash(data: Data(value.utf8)).withUnsafeBytes { Hex.lowercase($0) }
    }

    /// How long a session lasts.
    static let lifetime: TimeInterval = 12 * 3600
    /// The cookie that keeps the language an operator chose.
    static let languageCookie = "tally_console_lang"
    /// The actor of a session opened with the server's secret key.
    static let secretKeyActor = "secret-key"

    /// 32 random bytes, base64url: a session's cookie value or its CSRF token.
    static func randomToken() -> String {
        Base64.encodeURL((0..<32).map { _ in UInt8.random(in: 0...255) })
    }

    /// The SHA-256 of the secret key, kept with the sessions it opened; nil without a key.
    static func keyHash(_ secretKey: String?) -> String? {
        secretKey.flatMap { $0.isEmpty ? nil : hash($0) }
    }
}
