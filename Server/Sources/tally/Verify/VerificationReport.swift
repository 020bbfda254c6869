import Foundation
import TallyCore
import TallyVerify

/// One verdict of `tally verify` as a JSON line.
struct VerificationReport {
    let isValid: Bool
    let json: String

    static func verify(_ jws: String, kind: VerifyCommand.Kind, with verifier: SignedDataVerifier) async -> VerificationReport {
        switch kind {
        case .transaction:
            return report(await verifier.verifyTransaction(jws), kind: kind, verifier: verifier)
        case .renewal:
            return report(await verifier.verifyRenewalInfo(jws), kind: kind, verifier: verifier)
        case .appTransaction:
            return report(await verifier.verifyAppTransaction(jws), kind: kind, verifier: verifier)
        case .notification:
            switch await verifier.verifyNotification(jws, includingSignedData: true) {
            case .invalid(let failure):
                return invalid(failure)
            case .valid(let verified):
                var extra: [(String, Data)] = []
                if let transaction = verified.transaction { extra.append(("signed_transaction_info", transaction.rawPayload)) }
                if let renewal = verified.renewalInfo { extra.append(("signed_renewal_info", renewal.rawPayload)) }
                if let app = verified.appTransaction { extra.append(("signed_app_transaction_info", app.rawPayload)) }
                return valid(verified.notification, kind: kind, verifier: verifier, extra: extra)
            }
        }
    }

    private static func report<P>(_ result: VerificationResult<Verified<P>>, kind: VerifyCommand.Kind, verifier: SignedDataVerifier) -> VerificationReport {
        switch result {
        case .valid(let verified): return valid(verified, kind: kind, verifier: verifier, extra: [])
        case .invalid(let failure): return invalid(failure)
        }
    }

    private static func valid<P>(_ verified: Verified<P>, kind: VerifyCommand.Kind, verifier: SignedDataVerifier, extra: [(String, Data)]) -> VerificationReport {
        var unchecked: [String] = []
        if verifier.configuration.bundleID == .any { unchecked.append("\"bundle_id\"") }
        if verifier.configuration.appAppleID == .any { unchecked.append("\"app_apple_id\"") }
        var json = "{\"status\":\"valid\",\"kind\":\(quoted(kind.rawValue))"
        json += ",\"origin\":\(quoted(verified.origin.rawValue))"
        json += ",\"validation_time\":\(quoted(verified.validationTime.formatted(.iso8601)))"
        if !unchecked.isEmpty { json += ",\"unchecked\":[\(unchecked.joined(separator: ","))]" }
        json += ",\"payload\":\(oneLine(verified.rawPayload))"
        for (key, raw) in extra { json += ",\(quoted(key)):\(oneLine(raw))" }
        return VerificationReport(isValid: true, json: json + "}")
    }

    private static func invalid(_ failure: VerificationFailure) -> VerificationReport {
        VerificationReport(
            isValid: false,
            json: "{\"status\":\"invalid\",\"code\":\(quoted(failure.code.rawValue)),\"message\":\(quoted(failure.reason))}")
    }

    private static func quoted(_ string: String) -> String {
        (try? String(decoding: JSONEncoder().encode(string), as: UTF8.self)) ?? "\"\""
    }

    /// The signed JSON as signed, unless it spans lines; then re-serialized so one verdict stays one line.
    private static func oneLine(_ raw: Data) -> String {
        if !raw.contains(0x0A), !raw.contains(0x0D) { return String(decoding: raw, as: UTF8.self) }
        guard let object = try? JSONSerialization.jsonObject(with: raw, options: [.fragmentsAllowed]),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
