import Crypto
import Foundation
import TallyCore

/// A webhook endpoint's signing secret, in the Standard Webhooks form: `whsec_` and the
/// base64 of 24 to 64 random bytes.
public struct WebhookSecret: Hashable, Sendable, CustomStringConvertible {
    /// The secret as given to the receiver.
    public let text: String
    let key: SymmetricKey

    /// Reads a secret; nil unless it is `whsec_` and the base64 of 24 to 64 bytes.
    public init?(_ text: String) {
        guard text.hasPrefix("whsec_"), let bytes = Base64.decode(text.utf8.dropFirst(6), alphabet: .standard),
            (24...64).contains(bytes.count)
        else { return nil }
        self.text = text
        self.key = SymmetricKey(data: bytes)
    }

    /// A new secret of 32 random bytes.
    public static func generate() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return WebhookSecret("whsec_" + Data(bytes).base64EncodedString())!
    }

    /// Hidden, so that a secret never reaches a log by accident.
    public var description: String { "whsec_…" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// The Standard Webhooks signature: `v1,` and the base64 of HMAC-SHA256 over
/// `{webhook-id}.{webhook-timestamp}.{body}`; one per secret, separated by spaces.
public enum WebhookSignature: Sendable {
    /// The `webhook-signature` header for `body`, signed with each secret.
    public static func header(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        var content = Array("\(id).\(timestamp).".utf8)
        content.append(contentsOf: body)
        return secrets.map { secret in
            let mac = HMAC<SHA256>.authenticationCode(for: content, using: secret.key)
            return "v1," + Data(mac).base64EncodedString()
        }.joined(separator: " ")
    }
}
