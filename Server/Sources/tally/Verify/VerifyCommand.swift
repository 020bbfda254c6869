import ArgumentParser
import Foundation
import TallyCore
import TallyVerify
import X509

/// `tally verify`: verifies App Store signed data and prints one JSON verdict per JWS.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify App Store signed data (JWS) and print the verdict as JSON.",
        discussion: """
            Reads one compact JWS from FILE or standard input and prints
            {"status":"valid","kind":…,"payload":{…}} or {"status":"invalid","code":…,"message":…}.
            Exit status: 0 valid, 1 invalid, 2 usage error. With --jsonl, reads one JWS per line
            and prints one verdict per line, in order (an empty line gets a malformed_jws verdict);
            the status is 1 if any is invalid.
            Codes are listed in docs/verification-errors.md.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case transaction, renewal, notification
        case appTransaction = "app-transaction"
    }

    @Option(help: "What the JWS is: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var kind: Kind

    @Option(name: .customLong("root"), help: "A trusted root certificate, DER or PEM; repeatable. Default: the bundled Apple Root CA - G3.")
    var roots: [String] = []

    @Option(name: .customLong("environment"), help: "An accepted environment: Production, Sandbox or Xcode; repeatable. Default: Production.")
    var environments: [String] = []

    @Option(name: .customLong("bundle-id"), help: "The bundle identifier the data must name. Unchecked when absent.")
    var bundleID: String?

    @Option(name: .customLong("app-apple-id"), help: "The App Apple ID the data must name. Unchecked when absent.")
    var appAppleID: Int64?

    @Option(help: "Validation time: signed-date (default), now, or an ISO 8601 date.")
    var at: String = "signed-date"

    @Flag(help: "Read one JWS per line and print one JSON verdict per line.")
    var jsonl = false

    @Argument(help: "A file holding the JWS; standard input when absent.")
    var file: String?

    func validate() throws {
        for environment in environments where !["Production", "Sandbox", "Xcode"].contains(environment) {
            throw ValidationError("--environment must be Production, Sandbox or Xcode, not '\(environment)'")
        }
        _ = try validationTime()
    }

    func run() async throws {
        let verifier = SignedDataVerifier(try configuration(), now: { Date() })
        let input = try readInput()
        if jsonl {
            var allValid = true
            // Lines are split on LF bytes, so CRLF files work and line n of the output answers line n of the input.
            var lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
            if lines.last?.isEmpty == true { lines.removeLast() }
            for line in lines {
                let jws = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                let report = await VerificationReport.verify(jws, kind: kind, with: verifier)
                allValid = allValid && report.isValid
                FileHandle.standardOutput.write(Data((report.json + "\n").utf8))
            }
            if !allValid { throw ExitCode(1) }
        } else {
            let jws = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let report = await VerificationReport.verify(jws, kind: kind, with: verifier)
            FileHandle.standardOutput.write(Data((report.json + "\n").utf8))
            if !report.isValid { throw ExitCode(1) }
        }
    }

    private func configuration() throws -> SignedDataVerifier.Configuration {
        var certificates: [Certificate] = []
        for path in roots {
            do {
                certificates += try CertificateLoading.certificates(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("--root \(error.reason)")
            }
        }
        var configuration = SignedDataVerifier.Configuration(
            bundleID: bundleID.map { .equals($0) } ?? .any,
            appAppleID: appAppleID.map { .equals($0) } ?? .any,
            environments: Set((environments.isEmpty ? ["Production"] : environments).map(AppStoreEnvironment.init(rawValue:))),
            rootCertificates: certificates.isEmpty ? [AppleRootCertificates.appleRootCAG3] : certificates)
        configuration.validationTime = try validationTime()
        return configuration
    }

    private func validationTime() throws -> SignedDataVerifier.ValidationTime {
        switch at {
        case "signed-date": return .signedDate
        case "now": return .current
        default:
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: at) { return .fixed(date) }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: at) { return .fixed(date) }
            throw ValidationError("--at must be signed-date, now, or an ISO 8601 date such as 2025-10-01T07:08:38Z, not '\(at)'")
        }
    }

    private func readInput() throws -> Data {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("cannot read \(file)")
            }
            return data
        }
        return FileHandle.standardInput.readDataToEndOfFile()
    }
}
