import Foundation
import TallyCore
import TallyVerify

/// One verdict of `tally verify` for a JWS: a JSON object on one line.
///
/// Written straight into the output's bytes (``JSONText``), with the payload as signed: a
/// batch spends its time verifying, not formatting.
enum VerificationReport {
    /// What a JWS can be: the kinds of `--kind` but a receipt, which is not a JWS.
    enum JWSKind: CaseIterable {
        case transaction, renewal, notification, appTransaction

        /// The `--kind` that names it, which a verdict's `kind` repeats.
        var kind: VerifyCommand.Kind {
            switch self {
            case .transaction: .transaction
            case .renewal: .renewal
            case .notification: .notification
            case .appTransaction: .appTransaction
            }
        }
    }

    /// Verifies `jws` and appends its verdict and a newline to `output`.
    /// - Returns: whether the JWS is valid.
    static func verify(_ jws: String, kind: JWSKind, with verifier: SignedDataVerifier, into output: inout [UInt8]) async -> Bool {
        switch kind {
        case .transaction:
            return write(await verifier.verifyTransaction(jws), kind: kind, verifier: verifier, into: &output)
        case .renewal:
            return write(await verifier.verifyRenewalInfo(jws), kind: kind, verifier: verifier, into: &output)
        case .appTransaction:
            return write(await verifier.verifyAppTransaction(jws), kind: kind, verifier: verifier, into: &output)
        case .notification:
            switch await verifier.verifyNotification(jws, includingSignedData: true) {
            case .invalid(let failure):
                writeInvalid(failure, into: &output)
                return false
            case .valid(let verified):
                var extra: [(String, Data)] = []
                if let transaction = verified.transaction { extra.append(("signed_transaction_info", transaction.rawPayload)) }
                if let renewal = verified.renewalInfo { extra.append(("signed_renewal_info", renewal.rawPayload)) }
                if let app = verified.appTransaction { extra.append(("signed_app_transaction_info", app.rawPayload)) }
                writeValid(verified.notification, kind: kind, verifier: verifier, extra: extra, into: &output)
                return true
            }
        }
    }

    private static func write<P>(
        _ result: VerificationResult<Verified<P>>, kind: JWSKind, verifier: SignedDataVerifier, into output: inout [UInt8]
    ) -> Bool {
        switch result {
        case .valid(let verified):
            writeValid(verified, kind: kind, verifier: verifier, extra: [], into: &output)
            return true
        case .invalid(let failure):
            writeInvalid(failure, into: &output)
            return false
        }
    }

    private static func writeValid<P>(
        _ verified: Verified<P>, kind: JWSKind, verifier: SignedDataVerifier, extra: [(String, Data)], into output: inout [UInt8]
    ) {
        appendValidHead(kind: kind.kind, origin: verified.origin, validationTime: verified.validationTime, to: &output)
        switch (verifier.configuration.bundleID == .any, verifier.configuration.appAppleID == .any) {
        case (true, true): output.append(contentsOf: #","unchecked":["bundle_id","app_apple_id"]"#.utf8)
        case (true, false): output.append(contentsOf: #","unchecked":["bundle_id"]"#.utf8)
        case (false, true): output.append(contentsOf: #","unchecked":["app_apple_id"]"#.utf8)
        case (false, false): break
        }
        output.append(contentsOf: #","payload":"#.utf8)
        appendOneLine(verified.rawPayload, to: &output)
        for (key, raw) in extra {
            output.append(UInt8(ascii: ","))
            JSONText.appendQuoted(key, to: &output)
            output.append(UInt8(ascii: ":"))
            appendOneLine(raw, to: &output)
        }
        output.append(contentsOf: "}\n".utf8)
    }

    /// Appends a valid verdict's first fields, up to the validation time: what every kind shares.
    static func appendValidHead(kind: VerifyCommand.Kind, origin: SignatureOrigin, validationTime: Date, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"status":"valid","kind":"#.utf8)
        JSONText.appendQuoted(kind.rawValue, to: &output)
        output.append(contentsOf: #","origin":"#.utf8)
        JSONText.appendQuoted(origin.rawValue, to: &output)
        output.append(contentsOf: #","validation_time":""#.utf8)
        JSONText.appendISO8601(validationTime, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Appends an invalid verdict and a newline.
    static func writeInvalid(_ failure: VerificationFailure, into output: inout [UInt8]) {
        output.append(contentsOf: #"{"status":"invalid","code":"#.utf8)
        JSONText.appendQuoted(failure.code.rawValue, to: &output)
        output.append(contentsOf: #","message":"#.utf8)
        JSONText.appendQuoted(failure.reason, to: &output)
        output.append(contentsOf: "}\n".utf8)
    }

    /// The signed JSON as signed, unless it spans lines; then re-serialized so one verdict stays one line.
    private static func appendOneLine(_ raw: Data, to output: inout [UInt8]) {
        let (spansLines, plainASCII) = raw.withUnsafeBytes { bytes -> (Bool, Bool) in
            var spansLines = false
            var union: UInt8 = 0
            for byte in bytes {
                if byte == 0x0A || byte == 0x0D { spansLines = true }
                union |= byte
            }
            return (spansLines, union < 0x80)
        }
        if !spansLines {
            // Non-ASCII goes through String, as it always did, so that any invalid UTF-8 is replaced the same way.
            if plainASCII {
                raw.withUnsafeBytes { output.append(contentsOf: $0) }
            } else {
                output.append(contentsOf: String(decoding: raw, as: UTF8.self).utf8)
            }
            return
        }
        guard let object = try? JSONSerialization.jsonObject(with: raw, options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])
        else {
            output.append(contentsOf: "null".utf8)
            return
        }
        output.append(contentsOf: String(decoding: data, as: UTF8.self).utf8)
    }
}
