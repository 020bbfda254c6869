import ArgumentParser
import Foundation
import TallyCore
import TallyVerify
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tally verify`: verifies App Store signed data (JWS) or an app receipt and prints one JSON
/// verdict per input.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify App Store signed data (JWS) or an app receipt and print the verdict as JSON.",
        discussion: """
            Reads one compact JWS, or with --kind receipt one app receipt (its PKCS#7 bytes or
            their base64), from FILE or standard input and prints
            {"status":"valid","kind":…,"origin":…,"validation_time":…,"unchecked":[…],"payload":{…}}
            or {"status":"invalid","code":…,"message":…}.
            Exit status: 0 valid, 1 invalid, 2 usage error. With --jsonl, reads one JWS (or one
            base64 receipt) per line and prints one verdict per line, in order (an empty line gets
            a malformed_jws or malformed_receipt verdict); the status is 1 if any is invalid.
            A JWS's payload is printed as signed. A receipt's payload is the decoded receipt with
            verifyReceipt's snake_case names where Apple has one: receipt_type (as written),
            environment (Production, Sandbox or Xcode), app_item_id, bundle_id,
            application_version, opaque_value and sha1_hash (base64), receipt_creation_date,
            original_purchase_date, original_application_version, expiration_date, and in_app, one
            object per in-app purchase: quantity, product_id, transaction_id,
            original_transaction_id, purchase_date, original_purchase_date, product_type (the
            integer as written: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable),
            expires_date, web_order_line_item_id (a string), cancellation_date, is_trial_period,
            is_in_intro_offer_period, promotional_offer_id. Dates are ISO 8601 in UTC, numbers
            and flags are JSON numbers and booleans, and fields a receipt lacks are left out.
            Codes are listed in docs/verification-errors.md.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case transaction, renewal, notification
        case appTransaction = "app-transaction"
        case receipt

        /// The kind of JWS it names; nil for a receipt, which is not a JWS.
        var jws: VerificationReport.JWSKind? {
            switch self {
            case .transaction: .transaction
            case .renewal: .renewal
            case .notification: .notification
            case .appTransaction: .appTransaction
            case .receipt: nil
            }
        }
    }

    @Option(help: "What to verify: transaction, renewal, notification or app-transaction (a JWS), or receipt (an app receipt).")
    var kind: Kind

    @Option(
        name: .customLong("root"),
        help: "A trusted root certificate, DER or PEM; repeatable. Default: the bundled Apple Root CA - G3, or for receipts Apple Root CA.")
    var roots: [String] = []

    @Option(name: .customLong("environment"), help: "An accepted environment: Production, Sandbox or Xcode; repeatable. Default: Production.")
    var environments: [String] = []

    @Option(name: .customLong("bundle-id"), help: "The bundle identifier the data must name. Unchecked when absent.")
    var bundleID: String?

    @Option(name: .customLong("app-apple-id"), help: "The App Apple ID a JWS must name. Unchecked when absent.")
    var appAppleID: Int64?

    @Option(name: .customLong("app-version"), help: "The app version (CFBundleVersion) a receipt must name. Unchecked when absent.")
    var appVersion: String?

    @Option(
        name: .customLong("device-id"),
        help: "The device identifier a receipt's hash must be computed with, in hex (a UUID or a MAC address). Unchecked when absent.")
    var deviceID: String?

    @Option(help: "Validation time: signed-date (default; a receipt's creation date), now, or an ISO 8601 date.")
    var at: String = "signed-date"

    @Flag(help: "Read one JWS (or one base64 receipt) per line and print one JSON verdict per line.")
    var jsonl = false

    @Option(help: "With --jsonl: how many to verify at once (verdicts stay in input order). Default: one per core.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Argument(help: "A file holding the JWS or the receipt; standard input when absent.")
    var file: String?

    func validate() throws {
        for environment in environments where !["Production", "Sandbox", "Xcode"].contains(environment) {
            throw ValidationError("--environment must be Production, Sandbox or Xcode, not '\(environment)'")
        }
        guard (1...256).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 256") }
        if kind == .receipt {
            if appAppleID != nil {
                throw ValidationError("--app-apple-id does not apply to --kind receipt: receipts are checked by --bundle-id, --app-version and --device-id")
            }
            if let deviceID, DeviceIdentifier(hex: deviceID) == nil {
                throw ValidationError(
                    "--device-id must be hexadecimal (a UUID such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F or a MAC address such as 00:1b:63:84:45:e6), not '\(deviceID)'"
                )
            }
        } else {
            if appVersion != nil { throw ValidationError("--app-version applies only to --kind receipt") }
            if deviceID != nil { throw ValidationError("--device-id applies only to --kind receipt") }
        }
        _ = try validationTime()
    }

    func run() async throws {
        if let jwsKind = kind.jws {
            try await run(JWSVerdicts(verifier: SignedDataVerifier(try configuration(), now: { Date() }), kind: jwsKind))
        } else {
            try await run(
                ReceiptVerdicts(
                    verifier: ReceiptVerifier(try receiptConfiguration(), now: { Date() }), deviceIdentifier: deviceID.flatMap(DeviceIdentifier.init(hex:))))
        }
    }

    private func run(_ verdicts: some Verdicts) async throws {
        let descriptor = try openInput()
        defer { if file != nil { close(descriptor) } }
        var output = OutputBuffer()
        if jsonl {
            var reader = LineReader(descriptor: descriptor)
            var allValid = true
            while true {
                // Verdicts so far go out before a read that may wait, so a pipe fed line by line gets its answers.
                try output.flush()
                let lines: [ArraySlice<UInt8>]?
                do {
                    lines = try reader.next()
                } catch {
                    throw ValidationError("cannot read \(file ?? "standard input"): \(error)")
                }
                guard let lines else { break }
                allValid = try await Self.verify(lines, with: verdicts, jobs: jobs, into: &output) && allValid
            }
            try output.flush()
            if !allValid { throw ExitCode(1) }
        } else {
            var input: [UInt8] = []
            do {
                while case let chunk = try LineReader.readChunk(descriptor), !chunk.isEmpty { input += chunk }
            } catch {
                throw ValidationError("cannot read \(file ?? "standard input"): \(error)")
            }
            let valid = await verdicts.verify(input[...], into: &output.bytes)
            try output.flush()
            if !valid { throw ExitCode(1) }
        }
    }

    /// Verifies `lines` and appends their verdicts in order, `jobs` at a time, each on a
    /// contiguous share of the lines.
    /// - Returns: whether every line is valid.
    /// - Throws: ``OutputBuffer/Failure`` when standard output cannot be written.
    static func verify(
        _ lines: [ArraySlice<UInt8>], with verdicts: some Verdicts, jobs: Int, into output: inout OutputBuffer
    ) async throws -> Bool {
        let shares = min(jobs, lines.count)
        guard shares > 1 else {
            var allValid = true
            for line in lines {
                allValid = await verdicts.verify(line, into: &output.bytes) && allValid
                try output.flushIfFull()
            }
            return allValid
        }
        let results = await withTaskGroup(of: (Int, [UInt8], Bool).self) { group in
            for share in 0..<shares {
                let range = lines.count * share / shares..<lines.count * (share + 1) / shares
                group.addTask {
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(range.count * 2_048)
                    var allValid = true
                    for line in lines[range] {
                        allValid = await verdicts.verify(line, into: &bytes) && allValid
                    }
                    return (share, bytes, allValid)
                }
            }
            var results = [([UInt8], Bool)](repeating: ([], true), count: shares)
            for await (share, bytes, allValid) in group { results[share] = (bytes, allValid) }
            return results
        }
        var allValid = true
        for (bytes, valid) in results {
            output.bytes.append(contentsOf: bytes)
            allValid = allValid && valid
        }
        return allValid
    }

    /// The JWS on a line: the line without leading and trailing white space, exactly as
    /// `String.trimmingCharacters(in: .whitespacesAndNewlines)` leaves it.
    ///
    /// ASCII white space is trimmed from the bytes; when non-ASCII remains at either end (which
    /// may be Unicode white space), Foundation trims the decoded line instead.
    static func jws(in line: ArraySlice<UInt8>) -> String {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var start = line.startIndex
        var end = line.endIndex
        while start < end, isWhitespace(line[start]) { start += 1 }
        while end > start, isWhitespace(line[end - 1]) { end -= 1 }
        if start < end, line[start] >= 0x80 || line[end - 1] >= 0x80 {
            return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return String(decoding: line[start..<end], as: UTF8.self)
    }

    private func configuration() throws -> SignedDataVerifier.Configuration {
        var configuration = SignedDataVerifier.Configuration(
            bundleID: bundleID.map { .equals($0) } ?? .any,
            appAppleID: appAppleID.map { .equals($0) } ?? .any,
            environments: Set((environments.isEmpty ? ["Production"] : environments).map(AppStoreEnvironment.init(rawValue:))),
            rootCertificates: try rootCertificates(default: AppleRootCertificates.appleRootCAG3))
        configuration.validationTime = try validationTime()
        return configuration
    }

    private func receiptConfiguration() throws -> ReceiptVerifier.Configuration {
        var configuration = ReceiptVerifier.Configuration(
            bundleID: bundleID.map { .equals($0) } ?? .any,
            appVersion: appVersion.map { .equals($0) } ?? .any,
            environments: Set((environments.isEmpty ? ["Production"] : environments).map(AppStoreEnvironment.init(rawValue:))),
            rootCertificates: try rootCertificates(default: AppleRootCertificates.appleRootCA))
        configuration.validationTime = try validationTime()
        return configuration
    }

    /// The certificates `--root` names, or `fallback` when none is named.
    private func rootCertificates(default fallback: Certificate) throws -> [Certificate] {
        var certificates: [Certificate] = []
        for path in roots {
            do {
                certificates += try CertificateLoading.certificates(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("--root \(error.reason)")
            }
        }
        return certificates.isEmpty ? [fallback] : certificates
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

    /// The input's file descriptor: the file, opened for reading, or standard input.
    private func openInput() throws -> Int32 {
        guard let file else { return STDIN_FILENO }
        let descriptor = open(file, O_RDONLY)
        guard descriptor >= 0 else { throw ValidationError("cannot read \(file)") }
        return descriptor
    }
}
