import Crypto
public import Foundation
import SwiftASN1
public import TallyVerify
import X509

/// An OCSP responder in process for a ``TestCertificateAuthority``, to test online revocation
/// checks without a network.
///
/// It answers RFC 6960 requests for the authority's leaf and intermediate, signed by their
/// issuer as an authorized responder, echoing the request's nonce. Status, reachability and
/// time are set by the test.
public final class TestOCSPResponder: OCSPTransport, @unchecked Sendable {
    /// What the responder says about a certificate.
    public enum Status: Sendable, Equatable {
        /// Not revoked.
        case good
        /// Revoked at this time.
        case revoked(at: Date)
    }

    /// An error a responder that cannot be reached throws, as a network would.
    public struct Unreachable: Error, CustomStringConvertible {
        public var description: String { "connection refused (test responder is offline)" }
    }

    private let authority: TestCertificateAuthority
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var statuses: [ArraySlice<UInt8>: Status] = [:]
    private var offline = false
    private var requests = 0

    /// - Parameters:
    ///   - authority: the chain it answers for; mint it with an `ocspResponderURI` so verifiers ask.
    ///   - now: the responder's clock, for `producedAt` and `thisUpdate`.
    public init(authority: TestCertificateAuthority, now: @escaping @Sendable () -> Date) {
        self.authority = authority
        self.now = now
    }

    /// Sets what the responder says about the leaf.
    public func setLeafStatus(_ status: Status) {
        lock.withLock { statuses[Self.integer(authority.leaf.serialNumber.bytes)] = status }
    }

    /// Sets what the responder says about the intermediate.
    public func setIntermediateStatus(_ status: Status) {
        lock.withLock { statuses[Self.integer(authority.intermediate.serialNumber.bytes)] = status }
    }

    /// Takes the responder off the network (requests throw ``Unreachable``) or back on.
    public func setReachable(_ reachable: Bool) {
        lock.withLock { offline = !reachable }
    }

    /// How many requests reached the responder.
    public var requestCount: Int { lock.withLock { requests } }

    public func send(_ request: [UInt8], to responderURI: String) async throws -> [UInt8] {
        let (isOffline, time) = lock.withLock { () -> (Bool, Date) in
            requests += 1
            return (offline, now())
        }
        if isOffline { throw Unreachable() }
        let parsed = try ParsedRequest(request)
        let leafSerial = Self.integer(authority.leaf.serialNumber.bytes)
        let intermediateSerial = Self.integer(authority.intermediate.serialNumber.bytes)

        let issuer: Certificate
        let issuerKey: P256.Signing.PrivateKey
        if parsed.serial == leafSerial {
            (issuer, issuerKey) = (authority.intermediate, authority.intermediateKey)
        } else if parsed.serial == intermediateSerial {
            (issuer, issuerKey) = (authority.root, authority.rootKey)
        } else {
            return Self.unauthorizedResponse
        }
        let status = lock.withLock { statuses[parsed.serial] ?? .good }

        var data = DER.Serializer()
        try data.appendConstructedNode(identifier: .sequence) { data in
            // responderID byName [1], producedAt, responses, responseExtensions [1]
            try data.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) {
                try $0.serialize(issuer.subject)
            }
            try data.serialize(try Self.time(time))
            try data.appendConstructedNode(identifier: .sequence) { responses in
                try responses.appendConstructedNode(identifier: .sequence) { single in
                    single.serializeRawBytes(parsed.certID)
                    switch status {
                    case .good:
                        single.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { _ in }
                    case .revoked(let date):
                        try single.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) {
                            try $0.serialize(try Self.time(date))
                        }
                    }
                    try single.serialize(try Self.time(time.addingTimeInterval(-60)))
                    try single.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) {
                        try $0.serialize(try Self.time(time.addingTimeInterval(12 * 3600)))
                    }
                }
            }
            if let extensions = parsed.extensions {
                data.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) {
                    $0.serializeRawBytes(extensions)
                }
            }
        }
        let responseData = data.serializedBytes
        let signature = try issuerKey.signature(for: responseData).derRepresentation

        var basic = DER.Serializer()
        try basic.appendConstructedNode(identifier: .sequence) { basic in
            basic.serializeRawBytes(responseData)
            try basic.appendConstructedNode(identifier: .sequence) { try $0.serialize(Self.ecdsaWithSHA256) }
            try basic.serialize(ASN1BitString(bytes: ArraySlice(signature)))
        }
        var response = DER.Serializer()
        try response.appendConstructedNode(identifier: .sequence) { response in
            response.appendPrimitiveNode(identifier: .enumerated) { $0.append(0) }  // successful
            try response.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { explicit in
                try explicit.appendConstructedNode(identifier: .sequence) { bytes in
                    try bytes.serialize(Self.basicResponseType)
                    try bytes.serialize(ASN1OctetString(contentBytes: ArraySlice(basic.serializedBytes)))
                }
            }
        }
        return response.serializedBytes
    }

    private static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    private static let basicResponseType: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 48, 1, 1]
    /// `unauthorized (6)`: the responder does not know the certificate.
    private static let unauthorizedResponse: [UInt8] = [0x30, 0x03, 0x0A, 0x01, 0x06]

    /// A serial number's value without DER's sign padding, so both spellings compare equal.
    private static func integer(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes.drop(while: { $0 == 0 })
    }

    private static func time(_ date: Date) throws -> GeneralizedTime {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return try GeneralizedTime(
            year: parts.year!, month: parts.month!, day: parts.day!,
            hours: parts.hour!, minutes: parts.minute!, seconds: parts.second!, fractionalSeconds: 0)
    }

    /// The parts of an OCSP request a responder echoes: the CertID, its serial number, and
    /// the request extensions (which carry the nonce).
    private struct ParsedRequest {
        var certID: ArraySlice<UInt8>
        var serial: ArraySlice<UInt8>
        var extensions: ArraySlice<UInt8>?

        struct Malformed: Error {}

        init(_ bytes: [UInt8]) throws {
            let request = try DER.parse(bytes)
            guard case .constructed(let requestParts) = request.content,
                let tbs = requestParts.first(where: { _ in true }),
                case .constructed(let tbsParts) = tbs.content
            else { throw Malformed() }
            var certID: ASN1Node?
            var extensions: ArraySlice<UInt8>?
            for part in tbsParts {
                if part.identifier == .sequence, certID == nil,
                    case .constructed(let list) = part.content,
                    let single = list.first(where: { _ in true }),
                    case .constructed(let singleParts) = single.content
                {
                    certID = singleParts.first(where: { _ in true })
                } else if part.identifier == ASN1Identifier(tagWithNumber: 2, tagClass: .contextSpecific),
                    case .constructed(let explicit) = part.content,
                    let inner = explicit.first(where: { _ in true })
                {
                    extensions = inner.encodedBytes
                }
            }
            guard let certID, case .constructed(let idParts) = certID.content else { throw Malformed() }
            let fields = Array(idParts)
            guard fields.count == 4, case .primitive(let serial) = fields[3].content else { throw Malformed() }
            self.certID = certID.encodedBytes
            self.serial = serial.drop(while: { $0 == 0 })
            self.extensions = extensions
        }
    }
}
