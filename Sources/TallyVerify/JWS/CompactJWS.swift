import Foundation
import TallyCore

/// A compact JWS split into its parts, with the header decoded. Nothing is verified yet.
struct CompactJWS {
    /// The JOSE header fields the verifier reads.
    struct Header: Decodable, Sendable {
        var alg: String?
        var x5c: [String]?
        var crit: [String]?
        /// The chain cache key of a three-certificate `x5c`, computed once per header.
        var chainKey: ChainKey?

        private enum CodingKeys: String, CodingKey { case alg, x5c, crit }
    }

    let header: Header
    /// The base64url-decoded payload bytes.
    let payload: [UInt8]
    /// The base64url-decoded signature bytes.
    let signature: [UInt8]
    /// `BASE64URL(header) '.' BASE64URL(payload)`, the bytes the signature covers.
    let signingInput: Substring.UTF8View

    /// - Parameters:
    ///   - headers: decoded headers by their exact segment, so a stream signed by one chain
    ///     decodes its header once.
    init(_ jws: String, maximumLength: Int, headers: HeaderMemo? = nil) throws(VerificationFailure) {
        let utf8 = jws.utf8
        guard utf8.count <= maximumLength else {
            throw VerificationFailure(.inputTooLarge, "JWS is \(utf8.count) bytes; the limit is \(maximumLength)")
        }
        guard !utf8.isEmpty else {
            throw VerificationFailure(.malformedJWS, "JWS is empty")
        }
        let dots = Self.dotOffsets(utf8)
        guard dots.count >= 2 else {
            throw VerificationFailure(.malformedJWS, "compact JWS has fewer than three segments")
        }
        guard dots.count == 2 else {
            throw VerificationFailure(.malformedJWS, "compact JWS has more than three segments")
        }
        // Segment bounds are byte offsets: stepping by Character would fold combining marks
        // after a dot into the dot and silently drop them from the next segment.
        let first = utf8.index(utf8.startIndex, offsetBy: dots[0])
        let second = utf8.index(utf8.startIndex, offsetBy: dots[1])
        let afterFirst = utf8.index(after: first)
        let afterSecond = utf8.index(after: second)
        let signatureSegment = jws[afterSecond...]
        let headerSegment = jws[jws.startIndex..<first]
        let payloadSegment = jws[afterFirst..<second]
        guard !headerSegment.isEmpty, !payloadSegment.isEmpty, !signatureSegment.isEmpty else {
            throw VerificationFailure(.malformedJWS, "a JWS segment is empty")
        }

        let header: Header
        if let remembered = headers?.header(for: headerSegment) {
            header = remembered
        } else {
            guard let headerBytes = Base64.decode(headerSegment.utf8, alphabet: .url) else {
                throw VerificationFailure(.malformedJWS, "header segment is not base64url")
            }
            do {
                // The strict reader: a duplicated member (two `alg`s) is refused, not resolved.
                var decoded = try AppStoreJSON.decode(Header.self, from: headerBytes)
                if let x5c = decoded.x5c, x5c.count == 3 {
                    decoded.chainKey = ChainKey(leaf: x5c[0], intermediate: x5c[1])
                }
                header = decoded
            } catch {
                throw VerificationFailure(.malformedJWS, "header is not a JSON object with string alg and x5c array: \(InputProblem.decoding(error))")
            }
            // RFC 7515 §4.1.11: a recipient must reject a JWS whose critical extensions it does not understand.
            if let crit = header.crit {
                throw VerificationFailure(.malformedJWS, "header lists critical extensions \(crit) that this verifier does not implement")
            }
            headers?.remember(header, for: headerSegment)
        }
        guard let payload = Base64.decode(payloadSegment.utf8, alphabet: .url) else {
            throw VerificationFailure(.malformedJWS, "payload segment is not base64url")
        }
        guard let signature = Base64.decode(signatureSegment.utf8, alphabet: .url) else {
            throw VerificationFailure(.malformedJWS, "signature segment is not base64url")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = jws[jws.startIndex..<second].utf8
    }

    /// Byte offsets of the first three dots, found with `memchr` over contiguous UTF-8.
    private static func dotOffsets(_ utf8: String.UTF8View) -> [Int] {
        let found = utf8.withContiguousStorageIfAvailable { buffer -> [Int] in
            guard let base = buffer.baseAddress else { return [] }
            var offsets: [Int] = []
            var offset = 0
            while offsets.count < 3, offset < buffer.count,
                let hit = memchr(base + offset, Int32(UInt8(ascii: ".")), buffer.count - offset)
            {
                let position = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                offsets.append(position)
                offset = position + 1
            }
            return offsets
        }
        if let found { return found }
        var offsets: [Int] = []
        for (position, byte) in utf8.enumerated() where byte == UInt8(ascii: ".") {
            offsets.append(position)
            if offsets.count == 3 { break }
        }
        return offsets
    }

    /// Calls `body` with the signing input's bytes, without copying them when the string is contiguous.
    func withSigningInput<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        if let result = signingInput.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(signingInput).withUnsafeBytes(body)
    }
}

/// The few most recent valid headers, by their exact bytes.
///
/// App Store data comes from a handful of signing chains, so a stream repeats the same 4 KB
/// header; comparing bytes with the last ones seen is cheaper than decoding it again.
/// Only headers that decoded without error are remembered, so a hit is the same decision.
final class HeaderMemo: @unchecked Sendable {
    private struct Entry {
        let segment: [UInt8]
        let header: CompactJWS.Header
    }

    private let capacity: Int
    private let lock = NSLock()
    private var entries: [Entry] = []  // most recent first

    init(capacity: Int) {
        self.capacity = capacity
    }

    func header(for segment: Substring) -> CompactJWS.Header? {
        lock.lock()
        defer { lock.unlock() }
        for (index, entry) in entries.enumerated() where Self.equal(segment.utf8, entry.segment) {
            if index > 0 { entries.insert(entries.remove(at: index), at: 0) }
            return entry.header
        }
        return nil
    }

    func remember(_ header: CompactJWS.Header, for segment: Substring) {
        guard capacity > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        entries.insert(Entry(segment: Array(segment.utf8), header: header), at: 0)
        if entries.count > capacity { entries.removeLast() }
    }

    private static func equal(_ candidate: Substring.UTF8View, _ stored: [UInt8]) -> Bool {
        guard candidate.count == stored.count else { return false }
        if let same = candidate.withContiguousStorageIfAvailable({ buffer in
            stored.withUnsafeBufferPointer { memcmp(buffer.baseAddress!, $0.baseAddress!, stored.count) == 0 }
        }) {
            return same
        }
        return candidate.elementsEqual(stored)
    }
}
