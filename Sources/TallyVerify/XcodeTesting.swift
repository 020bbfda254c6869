public import Foundation
import TallyCore
public import X509

/// Xcode's StoreKit testing (a `.storekit` file in the scheme) signs transactions and receipts
/// with a certificate made on the developer's Mac, which anyone can make. A verifier trusts it
/// only when it is given that very certificate, saved from Xcode (open the `.storekit` file,
/// then Editor ▸ Save Public Certificate) and added to the app's bundle for Debug builds only.
///
/// ```swift
/// var configuration = SignedDataVerifier.Configuration(
///     bundleID: .equals("com.tally.example"), appAppleID: .equals(6_450_000_000), environments: [.production, .sandbox])
/// #if DEBUG
/// let certificate = try Data(contentsOf: Bundle.main.url(forResource: "StoreKitTestCertificate", withExtension: "cer")!)
/// try configuration.acceptXcodeTesting(certificate: certificate)
/// #endif
/// ```
public enum XcodeTesting: Sendable {
    /// Reads the certificate Xcode saved (DER, as in a `.cer` file).
    /// - Parameter der: the certificate's bytes.
    /// - Returns: the certificate.
    /// - Throws: ``VerificationFailure`` `malformed_certificate` when the bytes are not a certificate.
    public static func certificate(_ der: Data) throws(VerificationFailure) -> Certificate {
        do {
            return try Certificate(derEncoded: Array(der))
        } catch {
            throw VerificationFailure(.malformedCertificate, "the Xcode StoreKit testing certificate does not parse: \(error)")
        }
    }
}

extension SignedDataVerifier.Configuration {
    /// Accepts data signed in Xcode's StoreKit testing with `certificate`, and nothing else
    /// signed by a lone certificate: adds it as a root and accepts ``AppStoreEnvironment/xcode``.
    /// Call it under `#if DEBUG` only (see ``XcodeTesting``).
    /// - Parameter certificate: the certificate Xcode saved (DER, as in a `.cer` file).
    /// - Throws: ``VerificationFailure`` `malformed_certificate` when the bytes are not a certificate.
    public mutating func acceptXcodeTesting(certificate: Data) throws(VerificationFailure) {
        rootCertificates.append(try XcodeTesting.certificate(certificate))
        environments.insert(.xcode)
    }
}

extension ReceiptVerifier.Configuration {
    /// Accepts app receipts signed in Xcode's StoreKit testing with `certificate` (StoreKit 1):
    /// adds it as a root and accepts ``AppStoreEnvironment/xcode``. Call it under `#if DEBUG` only
    /// (see ``XcodeTesting``).
    /// - Parameter certificate: the certificate Xcode saved (DER, as in a `.cer` file).
    /// - Throws: ``VerificationFailure`` `malformed_certificate` when the bytes are not a certificate.
    public mutating func acceptXcodeTesting(certificate: Data) throws(VerificationFailure) {
        rootCertificates.append(try XcodeTesting.certificate(certificate))
        environments.insert(.xcode)
    }
}
