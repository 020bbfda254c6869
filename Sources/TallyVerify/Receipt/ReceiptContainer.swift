/// The parts of a receipt's PKCS#7 envelope (CMS `SignedData`, RFC 5652) that verification
/// needs: the signed content, the embedded certificates and the one signer.
///
/// ```
/// ContentInfo { signedData, [0] SignedData {
///     version, digestAlgorithms, encapContentInfo { data, [0] OCTET STRING payload },
///     [0] certificates, [1] crls?, signerInfos { SignerInfo } } }
/// ```
/// App Store receipts are DER; Xcode's are BER with indefinite lengths and the payload in a
/// constructed OCTET STRING of chunks. Both are read by ``BERReader``.
struct ReceiptContainer: Sendable {
    /// The signed content, chunks joined: the receipt's attribute set.
    let content: [UInt8]
    /// The DER of each embedded certificate, in order.
    let certificates: [ArraySlice<UInt8>]
    /// The content of the `certificates` field as it is encoded, a key for cached chains.
    let certificatesField: ArraySlice<UInt8>
    /// The only signer.
    let signer: SignerInfo

    /// Which certificate signed, as `SignerInfo.sid` names it.
    enum SignerIdentifier: Sendable {
        /// The issuer's name (DER) and the serial number's content bytes.
        case issuerAndSerialNumber(issuer: ArraySlice<UInt8>, serialNumber: ArraySlice<UInt8>)
        /// The subject key identifier's bytes.
        case subjectKeyIdentifier(ArraySlice<UInt8>)
    }

    /// The signed attributes of a `SignerInfo`, when present.
    struct SignedAttributes: Sendable {
        /// The DER of the attributes with a `SET OF` tag: what the signature covers.
        let der: [UInt8]
        /// The `messageDigest` attribute's value.
        let messageDigest: [UInt8]?
        /// The `contentType` attribute's OID content bytes.
        let contentType: ArraySlice<UInt8>?
    }

    struct SignerInfo: Sendable {
        let identifier: SignerIdentifier
        /// The encoding of `sid`, a key for cached chains.
        let identifierEncoding: ArraySlice<UInt8>
        let digestAlgorithm: ArraySlice<UInt8>
        let signedAttributes: SignedAttributes?
        let signatureAlgorithm: ArraySlice<UInt8>
        let signature: [UInt8]
    }

    /// The most certificates a receipt may carry.
    static let maximumCertificates = 10

    /// Object identifiers as their DER content bytes, compared without decoding.
    enum OID {
        static let signedData: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        static let data: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
        static let sha1: [UInt8] = [0x2B, 0x0E, 0x03, 0x02, 0x1A]
        static let sha256: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
        static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
        static let sha1WithRSAEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x05]
        static let sha256WithRSAEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]
        static let contentType: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03]
        static let messageDigest: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]
    }

    /// Parses the envelope.
    /// - Throws: ``BERError`` naming what is missing or malformed, with its byte offset.
    init(_ bytes: [UInt8]) throws(BERError) {
        var work = 0
        try self.init(bytes, work: &work)
    }

    /// Parses the envelope and counts the element headers read, also when parsing fails.
    /// - Throws: ``BERError`` naming what is missing or malformed, with its byte offset.
    init(_ bytes: [UInt8], work: inout Int) throws(BERError) {
        var reader = BERReader(bytes)
        defer { work = reader.work }
        let contentInfo = try reader.root()
        let info = try Self.sequence(contentInfo, "ContentInfo", &reader, count: 2...2)
        guard try Self.oid(info[0], &reader) == OID.signedData[...] else {
            throw BERError(offset: info[0].start, reason: "ContentInfo is not PKCS#7 signedData")
        }
        let explicit = try Self.context(info[1], 0, "ContentInfo content", &reader, count: 1...1)
        let signedData = try Self.sequence(explicit[0], "SignedData", &reader, count: 4...6)
        _ = try reader.integer(of: signedData[0])
        _ = try reader.children(of: Self.set(signedData[1], "digestAlgorithms"))

        let encapsulated = try Self.sequence(signedData[2], "encapContentInfo", &reader, count: 2...2)
        guard try Self.oid(encapsulated[0], &reader) == OID.data[...] else {
            throw BERError(offset: encapsulated[0].start, reason: "encapsulated content is not pkcs7-data")
        }
        let eContent = try Self.context(encapsulated[1], 0, "eContent", &reader, count: 1...1)
        content = try reader.octets(of: eContent[0])

        // Optional [0] certificates and [1] crls, then signerInfos, last.
        var certificates: [ArraySlice<UInt8>] = []
        var certificatesField: ArraySlice<UInt8> = []
        var index = 3
        if index < signedData.count - 1, signedData[index].isContext(0, constructed: true) {
            certificatesField = reader.content(of: signedData[index])
            for certificate in try reader.children(of: signedData[index]) where certificate.isUniversal(16, constructed: true) {
                // Other choices (attribute certificates) are not X.509 and cannot be in the chain.
                certificates.append(reader.encoding(of: certificate))
            }
            // Apple's receipts carry three; a bound keeps parsing certificates cheap.
            guard certificates.count <= Self.maximumCertificates else {
                throw BERError(
                    offset: signedData[index].start,
                    reason: "\(certificates.count) certificates; a receipt carries at most \(Self.maximumCertificates)")
            }
            index += 1
        }
        if index < signedData.count - 1, signedData[index].isContext(1, constructed: true) {
            index += 1
        }
        guard index == signedData.count - 1 else {
            throw BERError(offset: signedData[index].start, reason: "unexpected \(signedData[index].name) in SignedData")
        }
        let signerInfos = try reader.children(of: Self.set(signedData[index], "signerInfos"))
        guard signerInfos.count == 1 else {
            throw BERError(offset: signedData[index].start, reason: "\(signerInfos.count) signers; a receipt has exactly one")
        }
        signer = try Self.signerInfo(signerInfos[0], &reader)
        self.certificates = certificates
        self.certificatesField = certificatesField
    }

    /// A certificate's issuer (its encoding) and serial number (the INTEGER's content), read
    /// from its DER without decoding the rest.
    static func issuerAndSerialNumber(of certificate: ArraySlice<UInt8>) -> (issuer: ArraySlice<UInt8>, serialNumber: ArraySlice<UInt8>)? {
        var reader = BERReader(Array(certificate))
        guard let outer = try? reader.root(), outer.isUniversal(16, constructed: true),
            let tbs = try? reader.children(of: outer).first, tbs.isUniversal(16, constructed: true),
            let fields = try? reader.children(of: tbs)
        else { return nil }
        // TBSCertificate: [0] version (optional), serialNumber, signature, issuer, …
        let start = fields.first?.isContext(0, constructed: true) == true ? 1 : 0
        guard fields.count > start + 2, fields[start].isUniversal(2, constructed: false),
            fields[start + 2].isUniversal(16, constructed: true)
        else { return nil }
        return (reader.encoding(of: fields[start + 2]), reader.content(of: fields[start]))
    }

    private static func signerInfo(_ element: BERElement, _ reader: inout BERReader) throws(BERError) -> SignerInfo {
        let fields = try sequence(element, "SignerInfo", &reader, count: 5...7)
        _ = try reader.integer(of: fields[0])

        let identifier: SignerIdentifier
        let sid = fields[1]
        if sid.isUniversal(16, constructed: true) {
            let parts = try sequence(sid, "IssuerAndSerialNumber", &reader, count: 2...2)
            guard parts[0].isUniversal(16, constructed: true) else {
                throw BERError(offset: parts[0].start, reason: "signer's issuer is not a Name")
            }
            guard parts[1].isUniversal(2, constructed: false), parts[1].contentCount > 0 else {
                throw BERError(offset: parts[1].start, reason: "signer's serial number is not an INTEGER")
            }
            identifier = .issuerAndSerialNumber(issuer: reader.encoding(of: parts[0]), serialNumber: reader.content(of: parts[1]))
        } else if sid.isContext(0, constructed: false) {
            identifier = .subjectKeyIdentifier(reader.content(of: sid))
        } else {
            throw BERError(offset: sid.start, reason: "signer identifier is \(sid.name)")
        }

        let digestAlgorithm = try algorithm(fields[2], "digestAlgorithm", &reader)
        var index = 3
        var signedAttributes: SignedAttributes?
        if fields[index].isContext(0, constructed: true) {
            signedAttributes = try attributes(fields[index], &reader)
            index += 1
        }
        guard index + 1 < fields.count else {
            throw BERError(offset: element.start, reason: "SignerInfo ends before its signature")
        }
        let signatureAlgorithm = try algorithm(fields[index], "signatureAlgorithm", &reader)
        let signature = try reader.octets(of: fields[index + 1])
        // Only unsignedAttrs [1] may follow.
        if index + 2 < fields.count {
            guard index + 3 == fields.count, fields[index + 2].isContext(1, constructed: true) else {
                throw BERError(offset: fields[index + 2].start, reason: "unexpected \(fields[index + 2].name) after the signature")
            }
        }
        return SignerInfo(
            identifier: identifier, identifierEncoding: reader.encoding(of: sid), digestAlgorithm: digestAlgorithm,
            signedAttributes: signedAttributes, signatureAlgorithm: signatureAlgorithm, signature: signature)
    }

    private static func attributes(_ element: BERElement, _ reader: inout BERReader) throws(BERError) -> SignedAttributes {
        var messageDigest: [UInt8]?
        var contentType: ArraySlice<UInt8>?
        for attribute in try reader.children(of: element) {
            let parts = try sequence(attribute, "Attribute", &reader, count: 2...2)
            let type = try oid(parts[0], &reader)
            let values = try reader.children(of: set(parts[1], "attribute values"))
            if type == OID.messageDigest[...] {
                guard messageDigest == nil, values.count == 1 else {
                    throw BERError(offset: attribute.start, reason: "messageDigest must appear once with one value")
                }
                messageDigest = try reader.octets(of: values[0])
            } else if type == OID.contentType[...] {
                guard contentType == nil, values.count == 1 else {
                    throw BERError(offset: attribute.start, reason: "contentType must appear once with one value")
                }
                contentType = try oid(values[0], &reader)
            }
        }
        // RFC 5652 §5.4: the signature covers the attributes' DER under a SET OF tag, not [0].
        let der = reader.definiteEncoding(of: element, tag: 0x31)
        return SignedAttributes(der: der, messageDigest: messageDigest, contentType: contentType)
    }

    private static func algorithm(_ element: BERElement, _ name: String, _ reader: inout BERReader) throws(BERError) -> ArraySlice<UInt8> {
        let parts = try sequence(element, name, &reader, count: 1...2)
        return try oid(parts[0], &reader)
    }

    private static func sequence(
        _ element: BERElement, _ name: String, _ reader: inout BERReader, count: ClosedRange<Int>
    ) throws(BERError) -> [BERElement] {
        guard element.isUniversal(16, constructed: true) else {
            throw BERError(offset: element.start, reason: "\(name) is \(element.name), not a SEQUENCE")
        }
        let children = try reader.children(of: element)
        guard count.contains(children.count) else {
            throw BERError(offset: element.start, reason: "\(name) has \(children.count) fields, not \(count.lowerBound)…\(count.upperBound)")
        }
        return children
    }

    private static func set(_ element: BERElement, _ name: String) throws(BERError) -> BERElement {
        guard element.isUniversal(17, constructed: true) else {
            throw BERError(offset: element.start, reason: "\(name) is \(element.name), not a SET")
        }
        return element
    }

    private static func context(
        _ element: BERElement, _ number: UInt32, _ name: String, _ reader: inout BERReader, count: ClosedRange<Int>
    ) throws(BERError) -> [BERElement] {
        guard element.isContext(number, constructed: true) else {
            throw BERError(offset: element.start, reason: "\(name) is \(element.name), not [\(number)]")
        }
        let children = try reader.children(of: element)
        guard count.contains(children.count) else {
            throw BERError(offset: element.start, reason: "\(name) holds \(children.count) elements")
        }
        return children
    }

    private static func oid(_ element: BERElement, _ reader: inout BERReader) throws(BERError) -> ArraySlice<UInt8> {
        guard element.isUniversal(6, constructed: false), element.contentCount > 0 else {
            throw BERError(offset: element.start, reason: "\(element.name) where an OBJECT IDENTIFIER is expected")
        }
        return reader.content(of: element)
    }
}
