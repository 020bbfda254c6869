public import Crypto
public import Foundation
import TallyCore

/// The bearer token of the App Store Server API: an ES256 JWT signed with an In-App Purchase
/// key from App Store Connect.
///
/// Header `{"alg":"ES256","kid":KEY_ID,"typ":"JWT"}`; payload `{"iss":ISSUER_ID,"iat":…,"exp":…,
/// "aud":"appstoreconnect-v1","bid":BUNDLE_ID}`. Apple refuses tokens that expire more than
/// 60 minutes after they were issued.
public enum ServerAPIToken: Sendable {
    /// The audience every token names.
    public static let audience = "appstoreconnect-v1"
    /// The longest lifetime Apple accepts.
    public static let maximumLifetime: TimeInterval = 3600

    /// Signs a token.
    /// - Parameters:
    ///   - issuerID: the issuer ID of the App Store Connect team.
    ///   - keyID: the identifier of the In-App Purchase key.
    ///   - bundleID: the app's bundle identifier.
    ///   - key: the key's private part.
    ///   - issuedAt: when it is issued.
    ///   - lifetime: how long it lasts, at most an hour; 20 minutes by default.
    /// - Returns: the compact JWT.
    /// - Throws: when the signature cannot be computed.
    public static func sign(
        issuerID: String, keyID: String, bundleID: String, key: P256.Signing.PrivateKey,
        issuedAt: Date, lifetime: TimeInterval = 1200
    ) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID, "typ": "JWT"], options: [.sortedKeys])
        let issued = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let claims: [String: Any] = [
            "iss": issuerID, "iat": issued, "exp": issued + Int64(lifetime), "aud": audience, "bid": bundleID,
        ]
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = Base64.encodeURL(header) + "." + Base64.encodeURL(payload)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64.encodeURL(signature.rawRepresentation)
    }

    /// The claims of a token that passed ``verify(_:issuerID:bundleID:keys:now:)``.
    public struct Claims: Sendable, Hashable {
        /// The key that signed it.
        public let keyID: String
        /// When it was issued.
        public let issuedAt: Date
        /// When it expires.
        public let expiresAt: Date
    }

    /// Why a token was refused.
    public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public let reason: String
        public var description: String { reason }
    }

    /// Checks a token the way Apple does: ES256 signature by a known key, issuer, audience,
    /// bundle, issued no later than a minute from now, not expired, at most an hour long.
    /// - Parameters:
    ///   - token: the compact JWT (without `Bearer `).
    ///   - issuerID: the issuer ID it must name.
    ///   - bundleID: the bundle identifier it must name.
    ///   - keys: the public keys by key identifier.
    ///   - now: the current time.
    /// - Returns: its claims, or why it was refused.
    public static func verify(
        _ token: String, issuerID: String, bundleID: String, keys: [String: P256.Signing.PublicKey], now: Date
    ) -> Result<Claims, Rejection> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64.decode(parts[0].utf8, alphabet: .url),
            let payloadBytes = Base64.decode(parts[1].utf8, alphabet: .url),
            let signatureBytes = Base64.decode(parts[2].utf8, alphabet: .url),
            let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: Data(payloadBytes))) as? [String: Any]
        else {
            return .failure(Rejection(reason: "not a compact JWT"))
        }
        guard header["alg"] as? String == "ES256" else { return .failure(Rejection(reason: "alg is not ES256")) }
        guard let keyID = header["kid"] as? String, let key = keys[keyID] else {
            return .failure(Rejection(reason: "unknown key identifier"))
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else {
            return .failure(Rejection(reason: "signature does not verify"))
        }
        guard claims["iss"] as? String == issuerID else { return .failure(Rejection(reason: "wrong issuer")) }
        guard claims["aud"] as? String == audience else { return .failure(Rejection(reason: "audience is not \(audience)")) }
        guard claims["bid"] as? String == bundleID else { return .failure(Rejection(reason: "wrong bundle identifier")) }
        guard let iat = (claims["iat"] as? NSNumber)?.doubleValue, let exp = (claims["exp"] as? NSNumber)?.doubleValue else {
            return .failure(Rejection(reason: "iat and exp must be numbers"))
        }
        let issued = Date(timeIntervalSince1970: iat)
        let expires = Date(timeIntervalSince1970: exp)
        guard issued <= now.addingTimeInterval(60) else { return .failure(Rejection(reason: "issued in the future")) }
        guard expires > now else { return .failure(Rejection(reason: "expired")) }
        guard exp - iat <= maximumLifetime else { return .failure(Rejection(reason: "lasts more than an hour")) }
        return .success(Claims(keyID: keyID, issuedAt: issued, expiresAt: expires))
    }
}
