import Crypto
import Foundation
import SwiftASN1
@_spi(DisableValidityCheck) import X509

/// Validates a leaf and intermediate against the configured roots, with everything but time.
///
/// swift-certificates' `Verifier` decides; when it refuses, ``diagnose(leaf:intermediate:reasons:)``
/// works out which rule was broken so the failure code says what is wrong.
struct ChainValidator: Sendable {
    let roots: [Certificate]

    /// A JWS chain: the structure, and a P-256 leaf key to check ES256 with.
    func validate(leaf: Certificate, intermediate: Certificate) async -> Result<TrustedChain, VerificationFailure> {
        switch await validateStructure(leaf: leaf, intermediate: intermediate) {
        case .success(let certificates):
            guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
                return .failure(VerificationFailure(.invalidCertificateChain, "leaf key is not a P-256 key, so it cannot sign ES256"))
            }
            return .success(TrustedChain(leafKey: key, certificates: certificates))
        case .failure(let failure):
            return .failure(failure)
        }
    }

    /// Leaf, intermediate and the configured root they chain to, when they meet RFC 5280 and
    /// the App Store policy; validity periods are left to the caller.
    func validateStructure(leaf: Certificate, intermediate: Certificate) async -> Result<[Certificate], VerificationFailure> {
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            // Time is checked per payload against the cached chain; see TrustedChain.
            RFC5280Policy.withValidityCheckDisabled()
            AppStoreChainPolicy()
        }
        // Only configured roots anchor a chain: the root a JWS or receipt carries is never given.
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        switch result {
        case .validCertificate(let chain):
            return .success(Array(chain))
        case .couldNotValidate(let failures):
            let reasons = failures.map { InputProblem.scrubbed($0.policyFailureReason.description) }
            return .failure(diagnose(leaf: leaf, intermediate: intermediate, reasons: reasons))
        }
    }

    /// Names the broken rule, checking in order: trust, critical extensions, Apple's OIDs.
    func diagnose(leaf: Certificate, intermediate: Certificate, reasons: [String]) -> VerificationFailure {
        let issuers = roots.filter { $0.subject == intermediate.issuer }
        if issuers.isEmpty {
            return VerificationFailure(
                .untrustedChain,
                "intermediate '\(intermediate.subject)' was issued by '\(intermediate.issuer)', which is not a configured root")
        }
        guard let root = issuers.first(where: { $0.publicKey.isValidSignature(intermediate.signature, for: intermediate) }) else {
            return VerificationFailure(
                .untrustedChain,
                "intermediate's signature does not verify with the configured root '\(intermediate.issuer)'")
        }
        if leaf.issuer != intermediate.subject || !intermediate.publicKey.isValidSignature(leaf.signature, for: leaf) {
            return VerificationFailure(.untrustedChain, "leaf is not signed by the intermediate")
        }
        let handled = Set(RFC5280Policy.withValidityCheckDisabled().verifyingCriticalExtensions + AppStoreChainPolicy().verifyingCriticalExtensions)
        for (certificate, name) in [(leaf, "leaf"), (intermediate, "intermediate"), (root, "root")] {
            if let unknown = certificate.extensions.first(where: { $0.critical && !handled.contains($0.oid) }) {
                return VerificationFailure(
                    .unhandledCriticalExtension,
                    "\(name) certificate has critical extension \(unknown.oid), which no policy here understands")
            }
        }
        if intermediate.extensions[oid: AppleOIDs.intermediateMarker] == nil {
            return VerificationFailure(.missingAppleOID, "intermediate lacks Apple's intermediate OID \(AppleOIDs.intermediateMarker)")
        }
        if leaf.extensions[oid: AppleOIDs.receiptSigningMarker] == nil {
            return VerificationFailure(.missingAppleOID, "leaf lacks Apple's receipt-signing OID \(AppleOIDs.receiptSigningMarker)")
        }
        let detail = reasons.isEmpty ? "no chain to a configured root satisfies RFC 5280" : reasons.joined(separator: "; ")
        return VerificationFailure(.invalidCertificateChain, detail)
    }
}
