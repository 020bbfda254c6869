import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) @_spi(DisableValidityCheck) import X509

/// Asks the OCSP responders named in a chain whether its leaf and intermediate are revoked.
struct RevocationChecker: Sendable {
    let transport: any OCSPTransport

    /// `nil` when every certificate is good, otherwise the failure.
    func check(chain: [Certificate], at time: Date) async -> VerificationFailure? {
        guard chain.count == 3 else {
            return VerificationFailure(.invalidCertificateChain, "revocation checks need leaf, intermediate and root")
        }
        // Revocation was asked for: a certificate that names no responder cannot be checked,
        // and is refused rather than passed (swift-certificates would skip it).
        for (certificate, name) in zip(chain.prefix(2), ["leaf", "intermediate"]) {
            let names = (try? certificate.extensions.authorityInformationAccess)?.contains { $0.method == .ocspServer } ?? false
            if !names {
                return VerificationFailure(.revocationCheckFailed, "\(name) certificate names no OCSP responder, so its revocation cannot be checked")
            }
        }
        let requester = RecordingRequester(transport: transport)
        var verifier = Verifier(rootCertificates: CertificateStore([chain[2]])) {
            // The chain passed these already; they are here so its critical extensions are understood.
            RFC5280Policy.withValidityCheckDisabled()
            AppStoreChainPolicy()
            OCSPVerifierPolicy(failureMode: .hard, requester: requester, fixedExpiryValidationTime: time)
        }
        let result = await verifier.validate(leaf: chain[0], intermediates: CertificateStore([chain[1]]))
        switch result {
        case .validCertificate:
            return nil
        case .couldNotValidate(let failures):
            let reasons = failures.map { InputProblem.scrubbed($0.policyFailureReason.description) }.joined(separator: "; ")
            if let networkError = requester.networkError {
                return VerificationFailure(.revocationCheckUnavailable, "OCSP responder unreachable: \(networkError)")
            }
            if reasons.contains("revoked") {
                return VerificationFailure(.certificateRevoked, reasons)
            }
            return VerificationFailure(.revocationCheckFailed, reasons.isEmpty ? "OCSP check failed" : reasons)
        }
    }
}

/// Adapts an ``OCSPTransport`` to swift-certificates and remembers whether the network failed,
/// which is the one outcome worth retrying.
private final class RecordingRequester: OCSPRequester, @unchecked Sendable {
    private let transport: any OCSPTransport
    private let lock = NSLock()
    private var recorded: String?

    init(transport: any OCSPTransport) {
        self.transport = transport
    }

    var networkError: String? {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        do {
            return .response(try await transport.send(request, to: uri))
        } catch {
            lock.withLock { recorded = "\(uri): \(error)" }
            // Terminal, so that hard failure mode rejects instead of skipping the check.
            return .terminalError(error)
        }
    }
}
