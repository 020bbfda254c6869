import TallyVerify

/// What `tally verify` does with one input, a whole file or one line of a batch: verifies it
/// and appends its verdict, one JSON line, to the output.
protocol Verdicts: Sendable {
    /// Verifies `input` and appends its verdict and a newline to `output`.
    /// - Returns: whether the input is valid.
    func verify(_ input: ArraySlice<UInt8>, into output: inout [UInt8]) async -> Bool
}

/// Verdicts for compact JWS of one kind: the input without surrounding white space is the JWS.
struct JWSVerdicts: Verdicts {
    let verifier: SignedDataVerifier
    let kind: VerificationReport.JWSKind

    func verify(_ input: ArraySlice<UInt8>, into output: inout [UInt8]) async -> Bool {
        await VerificationReport.verify(VerifyCommand.jws(in: input), kind: kind, with: verifier, into: &output)
    }
}
