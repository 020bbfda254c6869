public import Crypto
public import Foundation
public import SwiftASN1
import TallyCore
import TallyVerify
public import X509

/// A certificate authority shaped like Apple's App Store signing chain, for tests, the
/// simulated App Store and benchmarks.
///
/// It mints a P-256 root, an intermediate with Apple's intermediate OID
/// (`1.2.840.113635.100.6.2.1`) and a leaf with the receipt-signing OID
/// (`1.2.840.113635.100.6.11.1`), with key identifiers on every certificate so that strict
/// X.509 checkers accept it. Signed data carries `x5c` of three, like Apple's.
///
/// Nothing trusts it by default: a verifier accepts its data only when ``root`` is passed
/// to it as a root certificate.
///
/// ```swift
/// let ca = try TestCertificateAuthority()
/// var payload = TransactionPayload()
/// payload.transactionID = "1"
/// let jws = try ca.sign(payload)
/// let verifier = SignedDataVerifier(.init(bundleID: .any, appAppleID: .any,
///     environments: [.sandbox], rootCertificates: [ca.root]), now: Date.init)
/// ```
public struct TestCertificateAuthority: Sendable {
    /// The self-signed root. Trust it explicitly to accept this authority's data.
    public let root: Certificate
    /// The intermediate, issued by ``root``.
    public let intermediate: Certificate
    /// The signing leaf, issued by ``intermediate``.
    public let leaf: Certificate
    /// The root's key.
    public let rootKey: P256.Signing.PrivateKey
    /// The intermediate's key.
    public let intermediateKey: P256.Signing.PrivateKey
    /// The leaf's key; it signs the JWS.
    public let leafKey: P256.Signing.PrivateKey

    /// The JWS header segment, computed once: `x5c` never changes for one authority.
    private let headerSegment: String

    /// How a chain is minted. The defaults give a chain Apple's rules accept; tests change one
    /// thing at a time to build each way a chain can be wrong.
    public struct Profile: Sendable {
        /// The moment the chain is minted; validity periods are counted from it.
        public var issuedAt: Date
        /// The root's validity period, in seconds.
        public var rootValidity: TimeInterval
        /// The intermediate's validity period, in seconds.
        public var intermediateValidity: TimeInterval
        /// The leaf's validity period, in seconds.
        public var leafValidity: TimeInterval
        /// How long before ``issuedAt`` each certificate's validity starts, in seconds.
        public var backdate: TimeInterval
        /// The OID put on the intermediate; `nil` for none.
        public var intermediateOID: ASN1ObjectIdentifier?
        /// The OID put on the leaf; `nil` for none.
        public var leafOID: ASN1ObjectIdentifier?
        /// Extra extensions for the leaf (an unknown critical one, say).
        public var extraLeafExtensions: [Certificate.Extension]
        /// An OCSP responder URI to name in the leaf's and intermediate's AIA extension.
        public var ocspResponderURI: String?
        /// The organization named in every subject.
        public var organization: String

        /// A chain with Apple's shape: root 20 years, intermediate 10, leaf 2, all valid from a day before `issuedAt`.
        public init(issuedAt: Date) {
            self.issuedAt = issuedAt
            self.rootValidity = 20 * 365 * 86_400
            self.intermediateValidity = 10 * 365 * 86_400
            self.leafValidity = 2 * 365 * 86_400
            self.backdate = 86_400
            self.intermediateOID = AppleOIDs.intermediateMarker
            self.leafOID = AppleOIDs.receiptSigningMarker
            self.extraLeafExtensions = []
            self.ocspResponderURI = nil
            self.organization = "Tally Test"
        }
    }

    /// Mints a new chain with fresh keys.
    /// - Parameter profile: how to mint it; Apple's shape by default, issued now.
    /// - Throws: when swift-certificates cannot build a certificate (a defect in the profile).
    public init(profile: Profile = Profile(issuedAt: Date())) throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let start = profile.issuedAt.addingTimeInterval(-profile.backdate)
        let rootName = try Self.name(common: "\(profile.organization) Root CA", organization: profile.organization)
        let intermediateName = try Self.name(common: "\(profile.organization) Worldwide Developer Relations CA", organization: profile.organization)
        let leafName = try Self.name(common: "\(profile.organization) App Store Receipt Signing", organization: profile.organization)

        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: start, notValidAfter: start.addingTimeInterval(profile.rootValidity),
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
            },
            issuerPrivateKey: .init(rootKey))

        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey))
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(rootKey.publicKey)).keyIdentifier)
        }
        if let oid = profile.intermediateOID {
            try intermediateExtensions.append(Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00]))
        }
        if let uri = profile.ocspResponderURI {
            try intermediateExtensions.append(
                Certificate.Extension(
                    AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(uri))]), critical: false))
        }
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: start, notValidAfter: start.addingTimeInterval(profile.intermediateValidity),
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: intermediateExtensions, issuerPrivateKey: .init(rootKey))

        var leafExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            SubjectKeyIdentifier(hash: .init(leafKey.publicKey))
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey)).keyIdentifier)
        }
        if let oid = profile.leafOID {
            try leafExtensions.append(Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00]))
        }
        if let uri = profile.ocspResponderURI {
            try leafExtensions.append(
                Certificate.Extension(
                    AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(uri))]), critical: false))
        }
        for extra in profile.extraLeafExtensions { try leafExtensions.append(extra) }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: start, notValidAfter: start.addingTimeInterval(profile.leafValidity),
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: leafExtensions, issuerPrivateKey: .init(intermediateKey))

        try self.init(root: root, intermediate: intermediate, leaf: leaf, rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey)
    }

    /// Assembles an authority from existing certificates and keys.
    /// - Throws: when a certificate cannot be DER-encoded.
    public init(
        root: Certificate, intermediate: Certificate, leaf: Certificate,
        rootKey: P256.Signing.PrivateKey, intermediateKey: P256.Signing.PrivateKey, leafKey: P256.Signing.PrivateKey
    ) throws {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
        self.headerSegment = try Self.headerSegment(x5c: [leaf, intermediate, root])
    }

    /// The DER bytes of ``root``, as a verifier's `--root` file holds them.
    public var rootDER: [UInt8] { (try? Self.der(root)) ?? [] }

    /// Signs `payload` as a compact JWS with `alg` ES256 and `x5c` of three.
    /// - Throws: when the payload cannot be encoded.
    public func sign(_ payload: some Encodable) throws -> String {
        try sign(json: AppStoreJSON.encoder().encode(payload))
    }

    /// Signs JSON bytes exactly as given.
    /// - Throws: when the signature cannot be computed.
    public func sign(json: Data) throws -> String {
        try Self.sign(json: json, headerSegment: headerSegment, key: leafKey)
    }

    // MARK: - Building blocks, public for tests that build broken data on purpose

    /// The header segment for a given header JSON object.
    public static func headerSegment(json: Data) -> String {
        Base64.encodeURL(json)
    }

    /// The header segment `{"alg":"ES256","x5c":[…]}` for these certificates.
    /// - Throws: when a certificate cannot be DER-encoded.
    public static func headerSegment(x5c certificates: [Certificate], alg: String = "ES256") throws -> String {
        let x5c = try certificates.map { "\"\(Data(try der($0)).base64EncodedString())\"" }.joined(separator: ",")
        return Base64.encodeURL(Data("{\"alg\":\"\(alg)\",\"x5c\":[\(x5c)]}".utf8))
    }

    /// `headerSegment.base64url(json).base64url(ES256 signature)`.
    /// - Throws: when the signature cannot be computed.
    public static func sign(json: Data, headerSegment: String, key: P256.Signing.PrivateKey) throws -> String {
        let signingInput = headerSegment + "." + Base64.encodeURL(json)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64.encodeURL(signature.rawRepresentation)
    }

    /// The DER encoding of a certificate.
    /// - Throws: when the certificate cannot be serialized.
    public static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    private static func name(common: String, organization: String) throws -> DistinguishedName {
        try DistinguishedName {
            CommonName(common)
            OrganizationalUnitName("\(organization) Certification Authority")
            OrganizationName(organization)
            CountryName("US")
        }
    }
}
