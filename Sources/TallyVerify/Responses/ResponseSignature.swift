public import Crypto
public import Foundation

/// Tally's signed answers (version 1): how a server proves that an answer to `/v1/me…` is its
/// own, fresh, and unchanged, and how an app checks it.
///
/// Two keys, both Ed25519:
/// - the **root** key, whose public half the app ships; its private half stays offline;
/// - an **intermediate** key with an expiry, signed by the root, which the server holds and
///   signs with. A new intermediate needs no app update; a leaked one stops working at its
///   expiry.
///
/// The app sends a fresh random nonce (`X-Tally-Nonce`, base64 of 16 to 64 bytes) with each
/// request. The server answers a 2xx with `X-Tally-Signed-At` (whole seconds since 1970) and
/// `X-Tally-Signature`: base64 of
///
/// | bytes | |
/// |---|---|
/// | 1 | version, 1 |
/// | 32 | the intermediate public key |
/// | 8 | its expiry, seconds since 1970, big-endian |
/// | 64 | the root's signature of `"tally-intermediate-v1"` + key + expiry |
/// | 64 | the intermediate's signature of the answer |
///
/// The answer's signed message is `"tally-response-v1"`, then, each as a 4-byte big-endian
/// length and its bytes: the nonce, the request's method, its target (the percent-encoded path
/// from `/v1/` on, and `?` and the query when there is one), the SHA-256 of the request's body,
/// the user the request was authenticated as, and the signing time; then the SHA-256 of the
/// answer's body. A changed answer, the answer to another request (another nonce, method,
/// target, body or user), or an old answer replayed does not verify.
public enum ResponseSignature: Sendable {
    public static let signatureHeader = "X-Tally-Signature"
    public static let signedAtHeader = "X-Tally-Signed-At"
    public static let nonceHeader = "X-Tally-Nonce"
    static let version: UInt8 = 1
    static let blobLength = 1 + 32 + 8 + 64 + 64

    /// What the root signs: the intermediate key and its expiry.
    static func intermediateMessage(publicKey: Data, expiresAt: Int64) -> Data {
        var message = Data("tally-intermediate-v1".utf8)
        message.append(publicKey)
        message.append(bigEndian: expiresAt)
        return message
    }

    /// What the intermediate signs for one answer.
    static func responseMessage(_ request: SignedRequest, signedAt: Int64, body: some DataProtocol) -> Data {
        var message = Data("tally-response-v1".utf8)
        let parts = [
            request.nonce, Data(request.method.utf8), Data(request.target.utf8), Data(SHA256.hash(data: request.body)),
            Data(request.userID.utf8), withUnsafeBytes(of: signedAt.bigEndian) { Data($0) },
        ]
        for part in parts {
            message.append(bigEndian: UInt32(part.count))
            message.append(part)
        }
        message.append(contentsOf: SHA256.hash(data: body))
        return message
    }

    /// A request's target as both sides sign it: the percent-encoded path from `/v1/` on (a
    /// prefix before it, such as a proxy's mount point, is left out), then `?` and the query.
    public static func target(path: String, query: String?) -> String {
        let tail = path.range(of: "/v1/").map { String(path[$0.lowerBound...]) } ?? path
        guard let query, !query.isEmpty else { return tail }
        return tail + "?" + query
    }

    /// A new nonce for one request, as the header carries it.
    public static func makeNonce() -> String {
        Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// A nonce header's bytes: base64 of 16 to 64 bytes; nil otherwise.
    public static func nonceBytes(_ header: String) -> Data? {
        guard header.count <= 128, let bytes = Data(base64Encoded: header), (16...64).contains(bytes.count) else { return nil }
        return bytes
    }
}

/// The server's signing key: an intermediate Ed25519 key, its expiry, and the root's signature
/// of both. Made by ``issue(root:expiresAt:)`` where the root key is kept; stored as JSON.
public struct ResponseSigningKey: Sendable {
    public let privateKey: Curve25519.Signing.PrivateKey
    public let expiresAt: Date
    let rootSignature: Data

    /// A new intermediate key, valid until `expiresAt`, signed by `root`.
    public static func issue(root: Curve25519.Signing.PrivateKey, expiresAt: Date) throws -> ResponseSigningKey {
        let key = Curve25519.Signing.PrivateKey()
        let expiry = Int64(expiresAt.timeIntervalSince1970.rounded(.down))
        let signature = try root.signature(for: ResponseSignature.intermediateMessage(publicKey: key.publicKey.rawRepresentation, expiresAt: expiry))
        return ResponseSigningKey(privateKey: key, expiresAt: Date(timeIntervalSince1970: Double(expiry)), rootSignature: signature)
    }

    /// The answer's `X-Tally-Signature` value.
    public func sign(_ request: SignedRequest, signedAt: Int64, body: some DataProtocol) throws -> String {
        var blob = Data([ResponseSignature.version])
        blob.append(privateKey.publicKey.rawRepresentation)
        blob.append(bigEndian: Int64(expiresAt.timeIntervalSince1970))
        blob.append(rootSignature)
        blob.append(try privateKey.signature(for: ResponseSignature.responseMessage(request, signedAt: signedAt, body: body)))
        return blob.base64EncodedString()
    }

    struct File: Codable {
        var privateKey: String
        var expiresAt: Int64
        var rootSignature: String
    }

    /// The key as its file keeps it (JSON; the private key in base64: keep it secret).
    public func fileData() throws -> Data {
        let file = File(
            privateKey: privateKey.rawRepresentation.base64EncodedString(), expiresAt: Int64(expiresAt.timeIntervalSince1970),
            rootSignature: rootSignature.base64EncodedString())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(file)
    }

    /// Reads a key file written by ``fileData()``.
    public init(fileData: Data) throws {
        let file = try JSONDecoder().decode(File.self, from: fileData)
        guard let raw = Data(base64Encoded: file.privateKey), let signature = Data(base64Encoded: file.rootSignature), signature.count == 64 else {
            throw ResponseSigningKeyError(reason: "the signing key file is not valid")
        }
        try self.init(
            privateKey: Curve25519.Signing.PrivateKey(rawRepresentation: raw), expiresAt: Date(timeIntervalSince1970: Double(file.expiresAt)),
            rootSignature: signature)
    }

    init(privateKey: Curve25519.Signing.PrivateKey, expiresAt: Date, rootSignature: Data) {
        self.privateKey = privateKey
        self.expiresAt = expiresAt
        self.rootSignature = rootSignature
    }
}

/// What a signed answer is bound to: the request as the app sent it and the server received it.
public struct SignedRequest: Sendable, Hashable {
    /// The nonce's bytes.
    public var nonce: Data
    /// `GET`, `POST`, …
    public var method: String
    /// ``ResponseSignature/target(path:query:)``.
    public var target: String
    /// The request's body (empty for none).
    public var body: Data
    /// The user id the request is made as (its token's user).
    public var userID: String

    public init(nonce: Data, method: String, target: String, body: Data, userID: String) {
        self.nonce = nonce
        self.method = method
        self.target = target
        self.body = body
        self.userID = userID
    }
}

/// A signing key file that cannot be read.
public struct ResponseSigningKeyError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// Checks signed answers against the root public keys an app ships (several while a root is
/// replaced). Verdicts as values: a refusal says why.
public struct ResponseVerifier: Sendable {
    /// Why an answer was not accepted.
    public enum Failure: String, Sendable, Hashable, Codable {
        /// No signature, or no signing time.
        case unsigned
        /// The signature header or time is not in the expected form.
        case malformed
        /// The intermediate key is not signed by any of the app's roots.
        case unknownRoot = "unknown_root"
        /// The intermediate key expired before the answer was signed, or is used after its expiry.
        case expiredKey = "expired_key"
        /// The answer was signed too far from now: an old answer replayed, or a wrong clock.
        case stale
        /// The answer's signature does not match: a changed body, another request's answer.
        case badSignature = "bad_signature"
    }

    public let roots: [Curve25519.Signing.PublicKey]
    /// How far the signing time may be from the device's clock.
    public let tolerance: TimeInterval
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - roots: the root public keys, each 32 bytes in base64, as `tally keys root` prints them.
    ///   - tolerance: how far the signing time may be from the device's clock (5 minutes).
    ///   - now: the clock.
    ///
    /// The device's clock decides whether a key has expired and an answer is fresh: an app with
    /// a clock of its own it trusts more (one that the device's owner cannot set back) passes it.
    public init(rootKeys: [String], tolerance: TimeInterval = 300, now: @escaping @Sendable () -> Date = { Date() }) throws {
        guard tolerance.isFinite, (0...3600).contains(tolerance) else {
            throw ResponseSigningKeyError(reason: "the tolerance must be 0 to 3600 seconds")
        }
        roots = try rootKeys.map { text in
            guard let raw = Data(base64Encoded: text), raw.count == 32 else {
                throw ResponseSigningKeyError(reason: "a root key must be 32 bytes in base64")
            }
            return try Curve25519.Signing.PublicKey(rawRepresentation: raw)
        }
        self.tolerance = tolerance
        self.now = now
    }

    /// Whether `signature` (the header's value) signs this answer to `request`.
    /// - Returns: nil when it does; the failure otherwise.
    public func check(signature: String?, signedAt: String?, request: SignedRequest, body: some DataProtocol) -> Failure? {
        guard let signature, let signedAtText = signedAt else { return .unsigned }
        // Times are kept to 1970 ... 36812 (40 bits), so that no arithmetic below can overflow.
        guard let time = Int64(signedAtText), (0..<(1 << 40)).contains(time), let blob = Data(base64Encoded: signature),
            blob.count == ResponseSignature.blobLength, blob.first == ResponseSignature.version
        else { return .malformed }
        let bytes = [UInt8](blob)
        let publicRaw = Data(bytes[1..<33])
        let expiry = bytes[33..<41].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let rootSignature = Data(bytes[41..<105])
        let responseSignature = Data(bytes[105..<169])
        let intermediateMessage = ResponseSignature.intermediateMessage(publicKey: publicRaw, expiresAt: expiry)
        guard roots.contains(where: { $0.isValidSignature(rootSignature, for: intermediateMessage) }) else { return .unknownRoot }
        let seconds = now().timeIntervalSince1970
        guard seconds.isFinite, (0..<Double(1 << 40)).contains(seconds) else { return .stale }
        let current = Int64(seconds)
        // An expired key signs nothing, whatever the tolerance.
        guard time <= expiry, current <= expiry else { return .expiredKey }
        guard abs(current - time) <= Int64(tolerance) else { return .stale }
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicRaw),
            key.isValidSignature(responseSignature, for: ResponseSignature.responseMessage(request, signedAt: time, body: body))
        else { return .badSignature }
        return nil
    }
}

extension Data {
    mutating func append(bigEndian value: some FixedWidthInteger) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
