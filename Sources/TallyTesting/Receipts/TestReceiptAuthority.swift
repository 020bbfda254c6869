import Crypto
public import Foundation
public import SwiftASN1
public import TallyCore
public import TallyVerify
public import X509
public import _CryptoExtras

/// A certificate authority shaped like Apple's legacy receipt signing, for tests, the
/// simulated App Store and benchmarks: an RSA root, an intermediate with Apple's WWDR marker
/// OID (`1.2.840.113635.100.6.2.1`) and a signing leaf with the receipt-signing marker OID
/// (`1.2.840.113635.100.6.11.1`). It signs receipts as PKCS#7 `SignedData`, DER like the App
/// Store's or BER with indefinite lengths and chunked content like Xcode's.
///
/// ``xcode(issuedAt:key:)`` makes the other kind: one self-signed `CN=StoreKit` certificate
/// that signs directly, as Xcode's StoreKit testing does.
///
/// Nothing trusts it by default: a ``ReceiptVerifier`` accepts its receipts only when ``root``
/// is one of its root certificates.
///
/// ```swift
/// let authority = try TestReceiptAuthority(profile: .init(issuedAt: mintDate))
/// var receipt = AppReceipt()
/// receipt.bundleID = "com.example"
/// receipt.environment = .sandbox
/// receipt.receiptCreationDate = mintDate
/// let bytes = try authority.sign(ReceiptBuilder(receipt))
/// let verifier = ReceiptVerifier(.init(bundleID: .equals("com.example"), environments: [.sandbox],
///     rootCertificates: [authority.root]), now: { mintDate })
/// ```
public struct TestReceiptAuthority: Sendable {
    /// The self-signed root. Trust it explicitly to accept this authority's receipts.
    public let root: Certificate
    /// The intermediate, issued by ``root``; `nil` when the root signs itself, as Xcode's does.
    public let intermediate: Certificate?
    /// The certificate that signs receipts: the leaf, or the root for Xcode-style receipts.
    public let signer: Certificate
    /// The signer's key.
    public let signerKey: _RSA.Signing.PrivateKey

    /// The RSA keys of a chain. Generating a 2048-bit key takes a noticeable fraction of a
    /// second, so tests mint many chains from one set.
    public struct Keys: Sendable {
        /// The root's key.
        public var root: _RSA.Signing.PrivateKey
        /// The intermediate's key.
        public var intermediate: _RSA.Signing.PrivateKey
        /// The leaf's key.
        public var leaf: _RSA.Signing.PrivateKey

        /// Three fresh 2048-bit keys.
        /// - Throws: when a key cannot be generated.
        public static func generate() throws -> Keys {
            Keys(
                root: try _RSA.Signing.PrivateKey(keySize: .bits2048),
                intermediate: try _RSA.Signing.PrivateKey(keySize: .bits2048),
                leaf: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
    }

    /// How a chain is minted. The defaults give a chain Apple's rules accept; tests change one
    /// thing at a time to build each way a chain can be wrong.
    public struct Profile: Sendable {
        /// The moment the chain is minted; validity periods are counted from it.
        public var issuedAt: Date
        /// How long before ``issuedAt`` each certificate's validity starts, in seconds.
        public var backdate: TimeInterval
        /// The root's validity period, in seconds.
        public var rootValidity: TimeInterval
        /// The intermediate's validity period, in seconds.
        public var intermediateValidity: TimeInterval
        /// The leaf's validity period, in seconds.
        public var leafValidity: TimeInterval
        /// The OID put on the intermediate; `nil` for none.
        public var intermediateOID: ASN1ObjectIdentifier?
        /// The OID put on the leaf; `nil` for none.
        public var leafOID: ASN1ObjectIdentifier?
        /// The digest the certificates are signed with: SHA-1 as Apple's root and its first
        /// WWDR intermediate are, or SHA-256 as the current ones are.
        public var certificateDigest: ReceiptDigestAlgorithm
        /// The organization named in every subject.
        public var organization: String

        /// Apple's shape: root 20 years, intermediate 10, leaf 2, all valid from a day before
        /// `issuedAt`, signed with SHA-256.
        public init(issuedAt: Date) {
            self.issuedAt = issuedAt
            self.backdate = 86_400
            self.rootValidity = 20 * 365 * 86_400
            self.intermediateValidity = 10 * 365 * 86_400
            self.leafValidity = 2 * 365 * 86_400
            self.intermediateOID = AppleOIDs.intermediateMarker
            self.leafOID = AppleOIDs.receiptSigningMarker
            self.certificateDigest = .sha256
            self.organization = "Tally Test"
        }
    }

    /// How one receipt is signed and encoded.
    public struct SigningOptions: Sendable {
        /// How the envelope is encoded.
        public enum Encoding: Sendable, Hashable {
            /// DER, as the App Store writes receipts.
            case der
            /// BER as Xcode writes receipts: indefinite lengths around the content, which
            /// sits in a constructed OCTET STRING of chunks of at most `chunkSize` bytes.
            case indefiniteLength(chunkSize: Int)
        }

        /// The signer's digest: SHA-256, as receipts are signed since 2025; SHA-1 before.
        public var digest: ReceiptDigestAlgorithm
        /// The envelope's encoding.
        public var encoding: Encoding
        /// Whether the signer signs attributes (content type, message digest) rather than the
        /// content itself. Apple's receipts carry none; CMS allows them.
        public var signedAttributes: Bool
        /// Whether the root is embedded beside the leaf and intermediate, as Apple's receipts do.
        public var embedsRoot: Bool

        /// SHA-256, DER, no signed attributes, root embedded.
        public init(digest: ReceiptDigestAlgorithm = .sha256, encoding: Encoding = .der, signedAttributes: Bool = false, embedsRoot: Bool = true) {
            self.digest = digest
            self.encoding = encoding
            self.signedAttributes = signedAttributes
            self.embedsRoot = embedsRoot
        }
    }

    /// Mints a chain.
    /// - Parameters:
    ///   - profile: how to mint it.
    ///   - keys: the keys to use; three fresh ones when `nil`.
    /// - Throws: when a key cannot be generated or swift-certificates cannot build a certificate.
    public init(profile: Profile, keys: Keys? = nil) throws {
        let keys = try keys ?? Keys.generate()
        let start = profile.issuedAt.addingTimeInterval(-profile.backdate)
        let algorithm: Certificate.SignatureAlgorithm = profile.certificateDigest == .sha1 ? .sha1WithRSAEncryption : .sha256WithRSAEncryption
        let rootName = try Self.name(
            common: "\(profile.organization) Root CA", unit: "\(profile.organization) Certification Authority", organization: profile.organization)
        let intermediateName = try Self.name(
            common: "\(profile.organization) Worldwide Developer Relations Certification Authority", unit: "G5", organization: profile.organization)
        let leafName = try Self.name(
            common: "\(profile.organization) Mac App Store and iTunes Store Receipt Signing",
            unit: "\(profile.organization) Worldwide Developer Relations", organization: profile.organization)
        let rootPublic = Certificate.PublicKey(keys.root.publicKey)
        let intermediatePublic = Certificate.PublicKey(keys.intermediate.publicKey)
        let leafPublic = Certificate.PublicKey(keys.leaf.publicKey)

        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: rootPublic,
            notValidBefore: start, notValidAfter: start.addingTimeInterval(profile.rootValidity),
            issuer: rootName, subject: rootName, signatureAlgorithm: algorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: rootPublic)
            },
            issuerPrivateKey: .init(keys.root))

        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: intermediatePublic)
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: rootPublic).keyIdentifier)
        }
        if let oid = profile.intermediateOID {
            try intermediateExtensions.append(Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00]))
        }
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: intermediatePublic,
            notValidBefore: start, notValidAfter: start.addingTimeInterval(profile.intermediateValidity),
            issuer: rootName, subject: intermediateName, signatureAlgorithm: algorithm,
            extensions: intermediateExtensions, issuerPrivateKey: .init(keys.root))

        var leafExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            SubjectKeyIdentifier(hash: leafPublic)
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediatePublic).keyIdentifier)
        }
        if let oid = profile.leafOID {
            try leafExtensions.append(Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00]))
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: leafPublic,
            notValidBefore: start, notValidAfter: start.addingTimeInterval(profile.leafValidity),
            issuer: intermediateName, subject: leafName, signatureAlgorithm: algorithm,
            extensions: leafExtensions, issuerPrivateKey: .init(keys.intermediate))

        self.init(root: root, intermediate: intermediate, signer: leaf, signerKey: keys.leaf)
    }

    /// Assembles an authority from existing certificates and the signer's key.
    public init(root: Certificate, intermediate: Certificate?, signer: Certificate, signerKey: _RSA.Signing.PrivateKey) {
        self.root = root
        self.intermediate = intermediate
        self.signer = signer
        self.signerKey = signerKey
    }

    /// An authority like Xcode's StoreKit testing: one self-signed `CN=StoreKit` certificate,
    /// valid for 20 years from a day before `issuedAt`, that signs receipts itself.
    /// - Parameters:
    ///   - issuedAt: when the certificate is minted.
    ///   - key: its key; a fresh one when `nil`.
    /// - Throws: when a key cannot be generated or the certificate cannot be built.
    public static func xcode(issuedAt: Date, key: _RSA.Signing.PrivateKey? = nil) throws -> TestReceiptAuthority {
        let key = try key ?? _RSA.Signing.PrivateKey(keySize: .bits2048)
        let start = issuedAt.addingTimeInterval(-86_400)
        let name = try DistinguishedName { CommonName("StoreKit") }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: publicKey,
            notValidBefore: start, notValidAfter: start.addingTimeInterval(20 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: .init(key))
        return TestReceiptAuthority(root: certificate, intermediate: nil, signer: certificate, signerKey: key)
    }

    /// The DER bytes of ``root``, as a verifier's `--root` file holds them.
    public var rootDER: [UInt8] { (try? TestCertificateAuthority.der(root)) ?? [] }

    /// The certificates a receipt carries: leaf, intermediate and (unless left out) root; the
    /// one certificate for Xcode-style receipts.
    public func embeddedCertificates(includingRoot: Bool = true) -> [Certificate] {
        guard let intermediate else { return [signer] }
        return includingRoot ? [signer, intermediate, root] : [signer, intermediate]
    }

    // MARK: - Signing

    /// Signs a receipt built by `builder`.
    /// - Throws: when the signature cannot be computed or a certificate cannot be encoded.
    public func sign(_ builder: ReceiptBuilder, options: SigningOptions = SigningOptions()) throws -> [UInt8] {
        try sign(payload: builder.payload(), options: options)
    }

    /// Signs `receipt` as the App Store writes it.
    /// - Throws: when the signature cannot be computed or a certificate cannot be encoded.
    public func sign(_ receipt: AppReceipt, options: SigningOptions = SigningOptions()) throws -> [UInt8] {
        try sign(ReceiptBuilder(receipt), options: options)
    }

    /// Wraps `payload` (any bytes) in a PKCS#7 `SignedData` signed by ``signer``.
    /// - Throws: when the signature cannot be computed or a certificate cannot be encoded.
    public func sign(payload: [UInt8], options: SigningOptions = SigningOptions()) throws -> [UInt8] {
        let digestAlgorithm = ASN1Writer.sequence([ASN1Writer.oid(options.digest.oidBytes), ASN1Writer.null])
        var signedAttributes: [UInt8]?
        let signedBytes: [UInt8]
        if options.signedAttributes {
            let attributes = ASN1Writer.set([
                ASN1Writer.sequence([ASN1Writer.oid(OID.contentType), ASN1Writer.set([ASN1Writer.oid(OID.data)])]),
                ASN1Writer.sequence([
                    ASN1Writer.oid(OID.messageDigest), ASN1Writer.set([ASN1Writer.octetString(Self.digest(payload, options.digest))]),
                ]),
            ])
            signedAttributes = [0xA0] + attributes.dropFirst()
            signedBytes = attributes
        } else {
            signedBytes = payload
        }
        let signature: _RSA.Signing.RSASignature
        switch options.digest {
        case .sha1: signature = try signerKey.signature(for: Insecure.SHA1.hash(data: signedBytes), padding: .insecurePKCS1v1_5)
        case .sha256: signature = try signerKey.signature(for: SHA256.hash(data: signedBytes), padding: .insecurePKCS1v1_5)
        }

        var issuer = DER.Serializer()
        try issuer.serialize(signer.issuer)
        var signerInfo: [[UInt8]] = [
            ASN1Writer.integer(1),
            ASN1Writer.sequence([issuer.serializedBytes, ASN1Writer.integer(unsigned: signer.serialNumber.bytes)]),
            digestAlgorithm,
        ]
        if let signedAttributes { signerInfo.append(signedAttributes) }
        signerInfo += [
            ASN1Writer.sequence([ASN1Writer.oid(OID.rsaEncryption), ASN1Writer.null]),
            ASN1Writer.octetString(Array(signature.rawRepresentation)),
        ]
        let certificates = try embeddedCertificates(includingRoot: options.embedsRoot).flatMap { try TestCertificateAuthority.der($0) }
        let certificatesField = ASN1Writer.context(0, certificates)
        let signerInfos = ASN1Writer.set([ASN1Writer.sequence(signerInfo)])
        let version = ASN1Writer.integer(1)
        let digestAlgorithms = ASN1Writer.set([digestAlgorithm])

        switch options.encoding {
        case .der:
            let encapsulated = ASN1Writer.sequence([ASN1Writer.oid(OID.data), ASN1Writer.context(0, ASN1Writer.octetString(payload))])
            let signedData = ASN1Writer.sequence([version, digestAlgorithms, encapsulated, certificatesField, signerInfos])
            return ASN1Writer.sequence([ASN1Writer.oid(OID.signedData), ASN1Writer.context(0, signedData)])
        case .indefiniteLength(let chunkSize):
            let size = max(1, chunkSize)
            let chunks = stride(from: 0, to: payload.count, by: size).flatMap {
                ASN1Writer.octetString(Array(payload[$0..<min($0 + size, payload.count)]))
            }
            let content = ASN1Writer.indefinite(0x04, chunks)
            let encapsulated = ASN1Writer.indefinite(0x30, ASN1Writer.oid(OID.data) + ASN1Writer.indefinite(0xA0, content))
            let signedData = ASN1Writer.indefinite(0x30, version + digestAlgorithms + encapsulated + certificatesField + signerInfos)
            return ASN1Writer.indefinite(0x30, ASN1Writer.oid(OID.signedData) + ASN1Writer.indefinite(0xA0, signedData))
        }
    }

    private static func digest(_ bytes: [UInt8], _ algorithm: ReceiptDigestAlgorithm) -> [UInt8] {
        switch algorithm {
        case .sha1: return Array(Insecure.SHA1.hash(data: bytes))
        case .sha256: return Array(SHA256.hash(data: bytes))
        }
    }

    /// Object identifiers as DER content bytes (RFC 5652, RFC 8017).
    private enum OID {
        static let signedData: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        static let data: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
        static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
        static let contentType: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03]
        static let messageDigest: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]
    }

    private static func name(common: String, unit: String, organization: String) throws -> DistinguishedName {
        try DistinguishedName {
            CommonName(common)
            OrganizationalUnitName(unit)
            OrganizationName(organization)
            CountryName("US")
        }
    }
}
