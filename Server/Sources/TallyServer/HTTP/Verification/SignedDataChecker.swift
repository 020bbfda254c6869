import TallyCore
import TallyVerify

/// Verifies the signed data that devices and the App Store post (JWS and app receipts), counts
/// each refusal by its verification code in `tally_verification_failures_total`, and refuses in
/// the API's terms: 503 `verification_unavailable` when the data may verify later (a revocation
/// responder did not answer), 422 `verification_failed` naming the verifier's code otherwise.
/// Each refusal is also counted in the database per minute, for the console's overview
/// (through a ``VerificationFailureCounter``, which keeps garbage from becoming writes).
struct SignedDataChecker: Sendable {
    let verifier: SignedDataVerifier
    let receiptVerifier: ReceiptVerifier
    let metrics: Metrics
    let failures: VerificationFailureCounter?

    /// A device's signed transaction, verified.
    /// - Throws: ``TallyAPIError`` when it does not verify.
    func transaction(_ jws: String) async throws -> Verified<TransactionPayload> {
        switch await verifier.verifyTransaction(jws) {
        case .valid(let verified):
            return verified
        case .invalid(let failure):
            throw await refusal(
                failure, source: "purchase", unavailable: "the purchase cannot be verified now", failed: "the signed transaction did not verify")
        }
    }

    /// A device's app receipt (base64), verified; the device hash is not checked, since the
    /// server does not know the device's identifier.
    /// - Throws: ``TallyAPIError`` when it does not verify.
    func receipt(_ base64: String) async throws -> VerifiedReceipt {
        switch await receiptVerifier.verify(base64: base64) {
        case .valid(let verified):
            return verified
        case .invalid(let failure):
            throw await refusal(failure, source: "receipt", unavailable: "the receipt cannot be verified now", failed: "the receipt did not verify")
        }
    }

    /// An App Store Server Notification, verified with the transaction and renewal it carries.
    /// - Throws: ``TallyAPIError`` when it does not verify.
    func notification(_ jws: String) async throws -> VerifiedNotification {
        switch await verifier.verifyNotification(jws, includingSignedData: true) {
        case .valid(let verified):
            return verified
        case .invalid(let failure):
            throw await refusal(failure, source: "notification", unavailable: "cannot verify now", failed: "the notification did not verify")
        }
    }

    private func refusal(_ failure: VerificationFailure, source: String, unavailable: String, failed: String) async -> TallyAPIError {
        metrics.increment("tally_verification_failures_total", ["code": failure.code.rawValue])
        await failures?.count(source: source, code: failure.code.rawValue)
        if failure.isRetryable { return TallyAPIError(.verificationUnavailable, "\(unavailable): \(failure.reason)") }
        var error = TallyAPIError(.verificationFailed, "\(failed): \(failure.code.rawValue): \(failure.reason)")
        error.verificationCode = failure.code.rawValue
        return error
    }
}
