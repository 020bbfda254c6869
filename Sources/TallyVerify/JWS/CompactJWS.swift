import Foundation
import TallyCore

/// A compact JWS split into its parts, with the header decoded. Nothing is verified yet.
struct CompactJWS {
    /// The JOSE header fields the verifier reads.
    struct Header: Decodable {
        var alg: String?
        var x5c: [String]?
        var crit: [String]?
    }

    let header: Header
    /// The base64url-decoded payload bytes.
    let payload: [UInt8]
    /// The base64url-decoded signature bytes.
    let signature: [UInt8]
    /// `BASE64URL(header) '.' BASE64URL(payload)`, the bytes the signature covers.
    let signingInput: Substring.UTF8View

    init(_ jws: String, maximumLength: Int) throws(VerificationFailure) {
        let utf8 = jws.utf8
        guard utf8.count <= maximumLength else {
            throw VerificationFailure(.inputTooLarge, "JWS is \(utf8.count) bytes; the limit is \(maximumLength)")
        }
        guard !utf8.isEmpty else {
            throw VerificationFailure(.malformedJWS, "JWS is empty")
        }
        var dots: [String.Index] = []
        for index in utf8.indices where utf8[index] == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count > 2 { break }
        }
        guard dots.count == 2 else {
            let segments = dots.count > 2 ? "more than three" : "\(dots.count + 1)"
            throw VerificationFailure(.malformedJWS, "compact JWS has \(segments) segments; it needs exactly three")
        }
        let headerSegment = jws[jws.startIndex..<dots[0]]
        let payloadSegment = jws[jws.index(after: dots[0])..<dots[1]]
        let signatureSegment = jws[jws.index(after: dots[1])...]
        guard !headerSegment.isEmpty, !payloadSegment.isEmpty, !signatureSegment.isEmpty else {
            throw VerificationFailure(.malformedJWS, "a JWS segment is empty")
        }

        guard let headerBytes = Base64.decode(headerSegment.utf8, alphabet: .url) else {
            throw VerificationFailure(.malformedJWS, "header segment is not base64url")
        }
        guard let payload = Base64.decode(payloadSegment.utf8, alphabet: .url) else {
            throw VerificationFailure(.malformedJWS, "payload segment is not base64url")
        }
        guard let signature = Base64.decode(signatureSegment.utf8, alphabet: .url) else {
            throw VerificationFailure(.malformedJWS, "signature segment is not base64url")
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw VerificationFailure(.malformedJWS, "header is not a JSON object with string alg and x5c array: \(error)")
        }
        // RFC 7515 §4.1.11: a recipient must reject a JWS whose critical extensions it does not understand.
        if let crit = header.crit {
            throw VerificationFailure(.malformedJWS, "header lists critical extensions \(crit) that this verifier does not implement")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = jws[jws.startIndex..<dots[1]].utf8
    }

    /// Calls `body` with the signing input's bytes, without copying them when the string is contiguous.
    func withSigningInput<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        if let result = signingInput.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(signingInput).withUnsafeBytes(body)
    }
}
