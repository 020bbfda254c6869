import Crypto
import Foundation
import TallyCore

/// The user tokens the server hands out: `tu_` and 32 random bytes in base64url. Only their
/// SHA-256 is stored, so a copy of the database authenticates no one.
enum UserToken {
    /// A new token.
    static func new() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "tu_" + Base64.encodeURL(bytes)
    }

    /// What the database keeps of a token: its SHA-256, in lower-case hex.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).withUnsafeBytes { Hex.lowercase($0) }
    }
}
