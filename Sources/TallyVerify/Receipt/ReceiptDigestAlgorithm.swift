import Crypto
import Foundation

/// The digest a receipt's signer uses with RSA PKCS#1 v1.5: SHA-1 in receipts signed before
/// Apple's move to SHA-256 (2023 in the sandbox, January 2025 everywhere), SHA-256 after.
public enum ReceiptDigestAlgorithm: String, Hashable, Sendable, CaseIterable {
    /// SHA-1, `1.3.14.3.2.26`.
    case sha1
    /// SHA-256, `2.16.840.1.101.3.4.2.1`.
    case sha256

    /// The algorithm's OBJECT IDENTIFIER, as its DER content bytes.
    public var oidBytes: [UInt8] {
        switch self {
        case .sha1: return ReceiptContainer.OID.sha1
        case .sha256: return ReceiptContainer.OID.sha256
        }
    }

    /// The OBJECT IDENTIFIER's content bytes of RSA signing with this digest.
    public var rsaSignatureOIDBytes: [UInt8] {
        switch self {
        case .sha1: return ReceiptContainer.OID.sha1WithRSAEncryption
        case .sha256: return ReceiptContainer.OID.sha256WithRSAEncryption
        }
    }

    init?(oid: some Collection<UInt8>) {
        if oid.elementsEqual(ReceiptContainer.OID.sha1) {
            self = .sha1
        } else if oid.elementsEqual(ReceiptContainer.OID.sha256) {
            self = .sha256
        } else {
            return nil
        }
    }

    /// The digest of `bytes`.
    func hash(_ bytes: some DataProtocol) -> [UInt8] {
        switch self {
        case .sha1: return Array(Insecure.SHA1.hash(data: bytes))
        case .sha256: return Array(SHA256.hash(data: bytes))
        }
    }
}
