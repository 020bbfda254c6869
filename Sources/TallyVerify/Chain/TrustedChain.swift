import Crypto
import Foundation
import X509

/// A leaf and intermediate that passed every check that does not depend on time: they chain
/// to a configured root under RFC 5280 and the App Store policy.
///
/// What is left to check per payload is the validity period, so a cached chain is still
/// held against each payload's own validation time.
struct TrustedChain: Sendable {
    let leafKey: P256.Signing.PublicKey
    /// Leaf, intermediate, root.
    let certificates: [Certificate]

    /// The failure for `time`, naming the certificate, or `nil` when all are valid then.
    func validityFailure(at time: Date) -> VerificationFailure? {
        Self.validityFailure(of: certificates, names: ["leaf", "intermediate", "root"], at: time)
    }

    static func validityFailure(of certificates: [Certificate], names: [String], at time: Date) -> VerificationFailure? {
        for (certificate, name) in zip(certificates, names) {
            // RFC 5280 §4.1.2.5: both ends of the period are inclusive.
            if time > certificate.notValidAfter {
                return VerificationFailure(
                    .certificateExpired,
                    "\(name) certificate expired \(stamp(certificate.notValidAfter)); validation time is \(stamp(time))")
            }
            if time < certificate.notValidBefore {
                return VerificationFailure(
                    .certificateNotYetValid,
                    "\(name) certificate is valid from \(stamp(certificate.notValidBefore)); validation time is \(stamp(time))")
            }
        }
        return nil
    }

    /// `2026-01-01T00:00:00Z`. The formatter class rather than `Date.ISO8601FormatStyle`, which needs iOS 15.
    private static func stamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
