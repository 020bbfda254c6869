import SwiftASN1
import X509

/// The App Store's shape of chain: exactly leaf, intermediate, root, with Apple's marker OID
/// on the leaf and on the intermediate.
struct AppStoreChainPolicy: VerifierPolicy {
    // The markers carry no rules beyond their presence, which this policy checks.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [AppleOIDs.intermediateMarker, AppleOIDs.receiptSigningMarker]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "App Store chains are leaf, intermediate, root; this one has \(chain.count) certificates")
        }
        guard chain[0].extensions[oid: AppleOIDs.receiptSigningMarker] != nil else {
            return .failsToMeetPolicy(reason: "leaf lacks Apple's receipt-signing OID \(AppleOIDs.receiptSigningMarker)")
        }
        guard chain[1].extensions[oid: AppleOIDs.intermediateMarker] != nil else {
            return .failsToMeetPolicy(reason: "intermediate lacks Apple's intermediate OID \(AppleOIDs.intermediateMarker)")
        }
        return .meetsPolicy
    }
}
