import Crypto
public import Foundation
public import TallyCore
import X509
import _CryptoExtras

/// A verified app receipt: the decoded ``AppReceipt``, its signed content (the ASN.1 attribute
/// set) as ``Verified/rawPayload``, the time its chain was valid at, and what vouched for it.
public typealias VerifiedReceipt = Verified<AppReceipt>

/// Decides whether a legacy App Store app receipt (PKCS#7, StoreKit 1) is genuine and meant
/// for this app, locally, without Apple's `verifyReceipt`.
///
/// For each receipt it checks, in this order, and stops at the first failure:
/// 1. size, then the PKCS#7 `SignedData` envelope (BER or DER, one signer);
/// 2. the signer's digest is SHA-1 or SHA-256 with RSA;
/// 3. the signer's certificate, an intermediate the receipt carries and a configured root form
///    a chain under RFC 5280 with Apple's marker OIDs (`1.2.840.113635.100.6.2.1` on the
///    intermediate, `1.2.840.113635.100.6.11.1` on the leaf), whichever intermediate it is;
///    the root a receipt carries is never trusted, and verified chains are cached;
/// 4. the RSA PKCS#1 v1.5 signature over the content (over the signed attributes, whose
///    message digest must be the content's, when there are any);
/// 5. the content decodes as a receipt;
/// 6. every certificate is valid at the validation time, the receipt's creation date by default;
/// 7. bundle identifier and app version when configured, environment, and the device hash when
///    a device identifier is given.
///
/// A receipt signed directly by a configured root, as Xcode's StoreKit testing receipts are by
/// their self-signed certificate, verifies only when it says it is from Xcode: pass Xcode's
/// certificate in ``Configuration/rootCertificates`` and accept ``AppStoreEnvironment/xcode``.
///
/// ```swift
/// let verifier = ReceiptVerifier(
///     .init(bundleID: .equals("com.example.app"), environments: [.production]),
///     now: { Date() })
/// switch await verifier.verify(receiptData, deviceIdentifier: DeviceIdentifier(uuid: vendorID)) {
/// case .valid(let verified): print(verified.payload.inAppPurchases.count)
/// case .invalid(let failure): print(failure.code)
/// }
/// ```
public struct ReceiptVerifier: Sendable {
    /// The configuration this verifier was made with.
    public let configuration: Configuration
    private let now: @Sendable () -> Date
    private let cache: ChainCache<ReceiptChain>
    private let validator: ChainValidator

    /// - Parameters:
    ///   - configuration: what to trust and expect.
    ///   - now: the current time, read only for ``SignedDataVerifier/ValidationTime/current``
    ///     and for receipts without a creation date.
    public init(_ configuration: Configuration, now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.now = now
        self.cache = ChainCache(capacity: configuration.chainCacheCapacity)
        self.validator = ChainValidator(roots: configuration.rootCertificates)
    }

    /// Verifies a receipt given as its bytes (the contents of `appStoreReceiptURL`).
    /// - Parameters:
    ///   - receipt: the PKCS#7 bytes.
    ///   - deviceIdentifier: when given, the receipt's hash must have been computed with it.
    /// - Returns: the decoded receipt, or why it was rejected.
    public func verify(_ receipt: [UInt8], deviceIdentifier: DeviceIdentifier? = nil) async -> VerificationResult<VerifiedReceipt> {
        guard receipt.count <= configuration.maximumLength else {
            return .invalid(
                VerificationFailure(
                    .inputTooLarge, "receipt is \(receipt.count) bytes; the limit is \(configuration.maximumLength)"))
        }
        let container: ReceiptContainer
        do {
            container = try ReceiptContainer(receipt)
        } catch {
            return .invalid(VerificationFailure(.malformedReceipt, "not a PKCS#7 app receipt: \(error)"))
        }
        return await verify(container, deviceIdentifier: deviceIdentifier)
    }

    /// Verifies a receipt given as bytes.
    /// - Parameters:
    ///   - receipt: the PKCS#7 bytes.
    ///   - deviceIdentifier: when given, the receipt's hash must have been computed with it.
    /// - Returns: the decoded receipt, or why it was rejected.
    public func verify(_ receipt: Data, deviceIdentifier: DeviceIdentifier? = nil) async -> VerificationResult<VerifiedReceipt> {
        await verify(Array(receipt), deviceIdentifier: deviceIdentifier)
    }

    /// Verifies a receipt given in base64, as apps send it to servers; white space (line
    /// breaks included) is ignored.
    /// - Parameters:
    ///   - receipt: standard base64 of the PKCS#7 bytes.
    ///   - deviceIdentifier: when given, the receipt's hash must have been computed with it.
    /// - Returns: the decoded receipt, or why it was rejected.
    public func verify(base64 receipt: String, deviceIdentifier: DeviceIdentifier? = nil) async -> VerificationResult<VerifiedReceipt> {
        // Base64 is 4/3 of the bytes; a generous bound before decoding keeps huge text out.
        guard receipt.utf8.count <= configuration.maximumLength / 3 * 4 + 4 + configuration.maximumLength / 16 else {
            return .invalid(
                VerificationFailure(
                    .inputTooLarge, "receipt text is \(receipt.utf8.count) bytes; the limit is \(configuration.maximumLength) bytes decoded"))
        }
        guard let bytes = Self.bytes(base64: receipt) else {
            return .invalid(VerificationFailure(.malformedReceipt, "receipt is not standard base64"))
        }
        return await verify(bytes, deviceIdentifier: deviceIdentifier)
    }

    /// Verifies a receipt as files and request bodies hold it: the PKCS#7 bytes themselves
    /// (DER or BER), or base64 text of them, white space allowed.
    /// - Parameters:
    ///   - input: the bytes, or the base64 text's bytes.
    ///   - deviceIdentifier: when given, the receipt's hash must have been computed with it.
    /// - Returns: the decoded receipt, or why it was rejected.
    public func verify(bytesOrBase64 input: [UInt8], deviceIdentifier: DeviceIdentifier? = nil) async -> VerificationResult<VerifiedReceipt> {
        // A receipt starts with SEQUENCE and a long or indefinite length byte; base64 text is ASCII.
        if input.count >= 2, input[0] == 0x30, input[1] >= 0x80 {
            return await verify(input, deviceIdentifier: deviceIdentifier)
        }
        return await verify(base64: String(decoding: input, as: UTF8.self), deviceIdentifier: deviceIdentifier)
    }

    /// How many verified chains are cached now.
    public var cachedChainCount: Int { cache.count }

    /// How many chains were validated in full (cache misses) since the verifier was made.
    var chainValidations: Int { cache.insertions }

    // MARK: - The pipeline

    private func verify(_ container: ReceiptContainer, deviceIdentifier: DeviceIdentifier?) async -> VerificationResult<VerifiedReceipt> {
        let signer = container.signer
        guard let digest = ReceiptDigestAlgorithm(oid: signer.digestAlgorithm) else {
            return .invalid(
                VerificationFailure(
                    .unsupportedAlgorithm, "the signer's digest algorithm is \(Self.oidText(signer.digestAlgorithm)); receipts use SHA-1 or SHA-256"))
        }
        let signatureAlgorithm = signer.signatureAlgorithm
        guard
            signatureAlgorithm.elementsEqual(ReceiptContainer.OID.rsaEncryption)
                || signatureAlgorithm.elementsEqual(digest.rsaSignatureOIDBytes)
        else {
            return .invalid(
                VerificationFailure(
                    .unsupportedAlgorithm,
                    "the signature algorithm is \(Self.oidText(signatureAlgorithm)); receipts are signed with RSA and \(digest.rawValue)"))
        }

        let key = ChainKey(certificates: container.certificatesField, signer: signer.identifierEncoding)
        let chain: ReceiptChain
        if let cached = cache.lookup(key) {
            chain = cached.chain
        } else {
            switch await buildChain(container) {
            case .success(let built):
                chain = built
                cache.insert(built, for: key)
            case .failure(let failure):
                return .invalid(failure)
            }
        }

        if let failure = Self.checkSignature(container, digest: digest, key: chain.leafKey) { return .invalid(failure) }

        let decoded: ReceiptPayloadDecoder.Decoded
        do {
            decoded = try ReceiptPayloadDecoder.decode(container.content)
        } catch {
            return .invalid(VerificationFailure(.payloadNotDecodable, "signed content is not a receipt: \(error)"))
        }
        let receipt = decoded.receipt

        if chain.origin == .xcodeSelfSigned, receipt.environment != .xcode {
            let said = receipt.rawEnvironment.map { "'\($0)'" } ?? "no environment"
            return .invalid(
                VerificationFailure(
                    .untrustedChain, "a receipt signed by a root itself is accepted only from Xcode; this one says \(said)"))
        }
        let time = validationTime(for: receipt)
        let names = chain.origin == .xcodeSelfSigned ? ["Xcode"] : ["leaf", "intermediate", "root"]
        if let failure = TrustedChain.validityFailure(of: chain.certificates, names: names, at: time) { return .invalid(failure) }

        if let failure = checkClaims(decoded, deviceIdentifier: deviceIdentifier) { return .invalid(failure) }
        return .valid(Verified(payload: receipt, rawPayload: Data(container.content), validationTime: time, origin: chain.origin))
    }

    /// Finds the signer's certificate and its chain to a configured root.
    private func buildChain(_ container: ReceiptContainer) async -> Result<ReceiptChain, VerificationFailure> {
        var certificates: [Certificate] = []
        for (index, der) in container.certificates.enumerated() {
            do {
                certificates.append(try Certificate(derEncoded: Array(der)))
            } catch {
                return .failure(
                    VerificationFailure(
                        .malformedCertificate, "certificate \(index + 1) of the receipt is not a DER X.509 certificate: \(error)"))
            }
        }
        guard let signer = Self.signerCertificate(in: certificates, container: container) else {
            return .failure(
                VerificationFailure(
                    .malformedReceipt, "the receipt does not carry the certificate its signer names (it carries \(certificates.count))"))
        }
        guard let key = _RSA.Signing.PublicKey(signer.publicKey) else {
            return .failure(VerificationFailure(.invalidCertificateChain, "the signer's key is not an RSA key; receipts are signed with RSA"))
        }

        if configuration.rootCertificates.contains(signer) {
            // Trusted because the caller configured it; only for Xcode receipts (checked after decoding).
            return .success(ReceiptChain(leafKey: key, certificates: [signer], origin: .xcodeSelfSigned))
        }
        let issuers = certificates.filter { $0 != signer && $0.subject == signer.issuer }
        guard let intermediate = issuers.first(where: { $0.publicKey.isValidSignature(signer.signature, for: signer) }) ?? issuers.first else {
            if signer.subject == signer.issuer {
                return .failure(
                    VerificationFailure(
                        .untrustedChain,
                        "the receipt is signed by the self-signed certificate '\(signer.subject)', as Xcode's are, and it is not a configured root; Xcode receipts verify only when Xcode's certificate is passed as a root"
                    ))
            }
            if configuration.rootCertificates.contains(where: { $0.subject == signer.issuer }) {
                return .failure(
                    VerificationFailure(
                        .badCertificateChainLength,
                        "the signer was issued by the root '\(signer.issuer)' itself; App Store receipts are signed by a leaf under an intermediate"))
            }
            return .failure(
                VerificationFailure(
                    .untrustedChain, "the signer's issuer '\(signer.issuer)' is neither among the receipt's certificates nor a configured root"))
        }
        switch await validator.validateStructure(leaf: signer, intermediate: intermediate) {
        case .success(let chain):
            return .success(ReceiptChain(leafKey: key, certificates: chain, origin: .certificateChain))
        case .failure(let failure):
            return .failure(failure)
        }
    }

    private static func signerCertificate(in certificates: [Certificate], container: ReceiptContainer) -> Certificate? {
        switch container.signer.identifier {
        case .issuerAndSerialNumber(let issuer, let serialNumber):
            // The identifier copies the certificate's own encoding of its issuer and serial number.
            return container.certificates.indices.first { index in
                guard let (certificateIssuer, certificateSerial) = ReceiptContainer.issuerAndSerialNumber(of: container.certificates[index]) else {
                    return false
                }
                return certificateIssuer.elementsEqual(issuer) && certificateSerial.elementsEqual(serialNumber)
            }.map { certificates[$0] }
        case .subjectKeyIdentifier(let identifier):
            return certificates.first { certificate in
                guard let extensionValue = try? certificate.extensions.subjectKeyIdentifier else { return false }
                return extensionValue.keyIdentifier.elementsEqual(identifier)
            }
        }
    }

    private static func checkSignature(_ container: ReceiptContainer, digest: ReceiptDigestAlgorithm, key: _RSA.Signing.PublicKey) -> VerificationFailure? {
        let signed: [UInt8]
        if let attributes = container.signer.signedAttributes {
            guard let messageDigest = attributes.messageDigest else {
                return VerificationFailure(.badSignature, "the signed attributes carry no message digest")
            }
            guard messageDigest == digest.hash(container.content) else {
                return VerificationFailure(.badSignature, "the signed attributes' message digest is not the \(digest.rawValue) of the content")
            }
            if let contentType = attributes.contentType, !contentType.elementsEqual(ReceiptContainer.OID.data) {
                return VerificationFailure(.badSignature, "the signed attributes name content of type \(oidText(contentType)), not pkcs7-data")
            }
            signed = attributes.der
        } else {
            signed = container.content
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: container.signer.signature)
        let valid: Bool
        switch digest {
        case .sha1: valid = key.isValidSignature(signature, for: Insecure.SHA1.hash(data: signed), padding: .insecurePKCS1v1_5)
        case .sha256: valid = key.isValidSignature(signature, for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5)
        }
        guard valid else {
            return VerificationFailure(.badSignature, "the RSA \(digest.rawValue) signature does not verify with the signer's key")
        }
        return nil
    }

    private func validationTime(for receipt: AppReceipt) -> Date {
        switch configuration.validationTime {
        case .fixed(let date): return date
        case .current: return now()
        case .signedDate: return receipt.receiptCreationDate ?? now()
        }
    }

    private func checkClaims(_ decoded: ReceiptPayloadDecoder.Decoded, deviceIdentifier: DeviceIdentifier?) -> VerificationFailure? {
        let receipt = decoded.receipt
        if case .equals(let expected) = configuration.bundleID, receipt.bundleID != expected {
            let said = receipt.bundleID.map { "'\($0)'" } ?? "no bundle identifier"
            return VerificationFailure(.wrongBundleID, "receipt names \(said); expected '\(expected)'")
        }
        if case .equals(let expected) = configuration.appVersion, receipt.applicationVersion != expected {
            let said = receipt.applicationVersion.map { "'\($0)'" } ?? "no app version"
            return VerificationFailure(.wrongAppVersion, "receipt names app version \(said); expected '\(expected)'")
        }
        if let environment = receipt.environment {
            guard configuration.environments.contains(environment) else {
                let accepted = configuration.environments.map(\.rawValue).sorted().joined(separator: ", ")
                return VerificationFailure(
                    .wrongEnvironment, "receipt is from '\(receipt.rawEnvironment ?? environment.rawValue)'; accepted: \(accepted)")
            }
        } else if !configuration.acceptsMissingEnvironment {
            return VerificationFailure(.wrongEnvironment, "receipt names no environment, and receipts without one are not accepted")
        }
        if let deviceIdentifier {
            guard let opaque = receipt.opaqueValue, let hash = receipt.sha1Hash, let bundleIDField = decoded.bundleIDField else {
                return VerificationFailure(.deviceHashMismatch, "receipt carries no device hash (opaque value, hash and bundle identifier)")
            }
            var hasher = Insecure.SHA1()
            hasher.update(data: deviceIdentifier.bytes)
            hasher.update(data: opaque)
            hasher.update(data: bundleIDField)
            guard Array(hasher.finalize()) == Array(hash) else {
                return VerificationFailure(.deviceHashMismatch, "receipt's hash was not computed with device identifier \(deviceIdentifier)")
            }
        }
        return nil
    }

    private static func oidText(_ bytes: some Collection<UInt8>) -> String {
        // Dotted form for messages; first two arcs packed in the first value (X.690 §8.19).
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in bytes.prefix(64) {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                if arcs.isEmpty {
                    let first = min(value / 40, 2)
                    arcs = [first, value - first * 40]
                } else {
                    arcs.append(value)
                }
                value = 0
            }
        }
        return arcs.isEmpty ? "empty" : arcs.map(String.init).joined(separator: ".")
    }
}

/// A receipt signer's chain that passed every check that does not depend on time.
struct ReceiptChain: Sendable {
    let leafKey: _RSA.Signing.PublicKey
    /// Leaf, intermediate, root; or the one configured root that signed an Xcode receipt.
    let certificates: [Certificate]
    let origin: SignatureOrigin
}
