import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// `tally verify --kind receipt` as a user runs it, on receipts minted here: the verdict's
/// shape and payload, each check an option asks for, batches, and options that do not apply.
@Suite(.serialized) struct VerifyReceiptCommandTests {
    /// A chain with Apple's shape, minted once (RSA keys are slow to make).
    static let authority: TestReceiptAuthority = try! TestReceiptAuthority(profile: .init(issuedAt: mintDate))
    static let mintDate = SampleReceipt.mintDate
    static let device = DeviceIdentifier(hex: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let opaqueValue: [UInt8] = Array(repeating: 7, count: 16)

    let folder: URL
    let rootPath: String

    init() throws {
        folder = try TemporaryFolder().url
        rootPath = folder.appendingPathComponent("root.cer").path
        try Data(Self.authority.rootDER).write(to: URL(fileURLWithPath: rootPath))
    }

    /// A sandbox receipt for com.example 42, created 2024-06-02, bound to ``device``, with a
    /// consumable and a subscription in its first (trial) period.
    static func receipt(bundle: String = "com.example") -> ReceiptBuilder {
        let receipt = SampleReceipt.make(created: mintDate.addingTimeInterval(86_400), bundleID: bundle)
        var builder = ReceiptBuilder(receipt)
        builder.bind(to: device, opaqueValue: opaqueValue)
        return builder
    }

    static func signed(_ builder: ReceiptBuilder = receipt()) throws -> [UInt8] {
        try authority.sign(builder)
    }

    /// The receipt with one byte of its signed content changed: `com.example` becomes `com.exbmple`.
    static func tampered() throws -> [UInt8] {
        var bytes = try signed()
        let name = Array("com.example".utf8)
        let at = try #require((0...(bytes.count - name.count)).first { bytes[$0..<$0 + name.count].elementsEqual(name) })
        bytes[at + 6] = UInt8(ascii: "b")
        return bytes
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    var sandbox: [String] { ["verify", "--kind", "receipt", "--root", rootPath, "--environment", "Sandbox"] }

    @Test func aValidReceiptPrintsItsDecodedPayloadAndExitsZero() async throws {
        let path = try write(try Self.signed(), "receipt.der")
        let run = try await CommandLine.run(sandbox + ["--bundle-id", "com.example", path])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        // JSONText writes `/` as `\/`, as JSONEncoder does.
        let hash = Data(ReceiptBuilder.deviceHash(device: Self.device, opaqueValue: Self.opaqueValue, bundleID: "com.example"))
            .base64EncodedString().replacingOccurrences(of: "/", with: #"\/"#)
        let expected =
            #"{"status":"valid","kind":"receipt","origin":"certificate_chain","validation_time":"2024-06-02T00:00:00Z","#
            + #""unchecked":["app_version","device_id"],"payload":{"receipt_type":"ProductionSandbox","environment":"Sandbox","#
            + #""app_item_id":1234,"bundle_id":"com.example","application_version":"42","opaque_value":"BwcHBwcHBwcHBwcHBwcHBw==","#
            + #""sha1_hash":""# + hash + #"","receipt_creation_date":"2024-06-02T00:00:00Z","#
            + #""original_purchase_date":"2017-07-14T02:40:00Z","original_application_version":"1.0","in_app":["#
            + #"{"quantity":2,"product_id":"com.example.credits.10","transaction_id":"1000000000000001","#
            + #""original_transaction_id":"1000000000000001","purchase_date":"2024-06-01T23:00:00Z","#
            + #""original_purchase_date":"2024-06-01T23:00:00Z","product_type":1,"is_trial_period":false,"#
            + #""is_in_intro_offer_period":false},"#
            + #"{"quantity":1,"product_id":"com.example.pro.monthly","transaction_id":"1000000000000002","#
            + #""original_transaction_id":"1000000000000002","purchase_date":"2024-06-01T22:00:00Z","#
            + #""original_purchase_date":"2024-06-01T22:00:00Z","product_type":3,"expires_date":"2024-07-01T22:00:00Z","#
            + #""web_order_line_item_id":"2000000012345678","is_trial_period":true,"is_in_intro_offer_period":false,"#
            + #""promotional_offer_id":"winback"}]}}"# + "\n"
        #expect(run.stdout == expected)
        #expect(!CommandLine.json(run.stdout).isEmpty, "the verdict is JSON")
    }

    @Test func base64TextReadsAsTheBytesDo() async throws {
        let bytes = try Self.signed()
        let der = try await CommandLine.run(sandbox + [try write(bytes, "receipt.der")])
        // Apps send base64; files often wrap it in lines and end it with a newline.
        let wrapped = Data(bytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithCarriageReturn]) + "\n"
        let text = try await CommandLine.run(sandbox, stdin: wrapped)
        #expect(der.status == 0)
        #expect(text.stdout == der.stdout)
        #expect(text.status == 0)
    }

    @Test func aTamperedReceiptIsRefused() async throws {
        let run = try await CommandLine.run(sandbox + [try write(try Self.tampered(), "tampered.der")])
        #expect(run.status == 1)
        let verdict = CommandLine.json(run.stdout)
        #expect(verdict["status"] as? String == "invalid")
        #expect(verdict["code"] as? String == "bad_signature")
        #expect((verdict["message"] as? String)?.isEmpty == false)
    }

    @Test func anotherAppsReceiptIsRefused() async throws {
        let run = try await CommandLine.run(
            sandbox + ["--bundle-id", "com.example", try write(try Self.signed(Self.receipt(bundle: "com.other")), "other.der")])
        #expect(run.status == 1)
        #expect(CommandLine.json(run.stdout)["code"] as? String == "wrong_bundle_id")
    }

    @Test func theDeviceIdentifierMustBeTheOneTheHashWasMadeWith() async throws {
        let path = try write(try Self.signed(), "receipt.der")
        let other = try await CommandLine.run(sandbox + ["--device-id", "00:1b:63:84:45:e6", path])
        #expect(other.status == 1)
        #expect(CommandLine.json(other.stdout)["code"] as? String == "device_hash_mismatch")
        let same = try await CommandLine.run(sandbox + ["--device-id", "e621e1f8c36c495a93fc0c247a3e6e5f", path])
        #expect(same.status == 0, "\(same.stdout)")
        #expect(CommandLine.json(same.stdout)["unchecked"] as? [String] == ["bundle_id", "app_version"])
    }

    @Test func theAppVersionIsCheckedWhenGiven() async throws {
        let path = try write(try Self.signed(), "receipt.der")
        let wrong = try await CommandLine.run(sandbox + ["--app-version", "41", path])
        #expect(wrong.status == 1)
        #expect(CommandLine.json(wrong.stdout)["code"] as? String == "wrong_app_version")
        let right = try await CommandLine.run(sandbox + ["--app-version", "42", "--bundle-id", "com.example", "--device-id", Self.device.description, path])
        #expect(right.status == 0)
        #expect(CommandLine.json(right.stdout)["unchecked"] == nil, "every check was asked for: \(right.stdout)")
    }

    @Test func withoutOptionsOnlyAppleRootCAAndProductionAreAccepted() async throws {
        let path = try write(try Self.signed(), "receipt.der")
        let noRoot = try await CommandLine.run(["verify", "--kind", "receipt", "--environment", "Sandbox", path])
        #expect(noRoot.status == 1)
        #expect(CommandLine.json(noRoot.stdout)["code"] as? String == "untrusted_chain")
        let noEnvironment = try await CommandLine.run(["verify", "--kind", "receipt", "--root", rootPath, path])
        #expect(noEnvironment.status == 1)
        #expect(CommandLine.json(noEnvironment.stdout)["code"] as? String == "wrong_environment")
    }

    @Test func theChainIsCheckedAtTheCreationDateUnlessAnotherTimeIsGiven() async throws {
        let path = try write(try Self.signed(), "receipt.der")
        // The leaf is valid for two years from a day before the mint date.
        let late = try await CommandLine.run(sandbox + ["--at", "2030-01-01T00:00:00Z", path])
        #expect(CommandLine.json(late.stdout)["code"] as? String == "certificate_expired")
        let early = try await CommandLine.run(sandbox + ["--at", "2024-12-01T00:00:00Z", path])
        #expect(early.status == 0)
        #expect(CommandLine.json(early.stdout)["validation_time"] as? String == "2024-12-01T00:00:00Z")
    }

    @Test func jsonlPrintsForEachLineWhatTheSingleCommandPrintsForIt() async throws {
        let valid = Data(try Self.signed()).base64EncodedString()
        let lines = [
            valid, "", "not base64!", Data(try Self.tampered()).base64EncodedString(),
            Data(try Self.signed(Self.receipt(bundle: "com.other"))).base64EncodedString(), "  \t" + valid + " \r",
            Data("NOT A RECEIPT".utf8).base64EncodedString(), String(valid.dropLast(40)), valid,
        ]
        let file = folder.appendingPathComponent("batch.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let arguments = sandbox + ["--bundle-id", "com.example"]
        let batch = try await CommandLine.run(arguments + ["--jsonl", "--jobs", "1", file.path])
        #expect(batch.status == 1)
        let printed = batch.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(printed.count == lines.count + 1 && printed.last == "", "\(batch.stdout)")
        for (line, verdict) in zip(lines, printed) {
            let single = try await CommandLine.run(arguments, stdin: line)
            #expect(single.stdout == verdict + "\n", "\(line.prefix(80).debugDescription)")
            #expect(single.status == (verdict.hasPrefix(#"{"status":"valid""#) ? 0 : 1))
        }
        let codes = printed.dropLast().map { CommandLine.json($0)["code"] as? String }
        #expect(
            codes == [
                nil, "malformed_receipt", "malformed_receipt", "bad_signature", "wrong_bundle_id", nil,
                "malformed_receipt", "malformed_receipt", nil,
            ])
        for jobs in ["2", "3", "16"] {
            let parallel = try await CommandLine.run(arguments + ["--jsonl", "--jobs", jobs, file.path])
            #expect(parallel.stdout == batch.stdout, "--jobs \(jobs)")
            #expect(parallel.status == 1)
        }
        let piped = try await CommandLine.run(arguments + ["--jsonl"], stdin: lines.joined(separator: "\n"))
        #expect(piped.stdout == batch.stdout)
    }

    @Test(arguments: [
        (["verify", "--kind", "transaction", "--device-id", "00:1b:63:84:45:e6"], "--device-id"),
        (["verify", "--kind", "notification", "--app-version", "42"], "--app-version"),
        (["verify", "--kind", "receipt", "--app-apple-id", "1234"], "--app-apple-id"),
        (["verify", "--kind", "receipt", "--device-id", "not-hex"], "--device-id"),
        (["verify", "--kind", "receipt", "--device-id", "abc"], "--device-id"),
        (["verify", "--kind", "receipt", "--environment", "ProductionSandbox"], "--environment"),
        (["verify", "--kind", "receipt", "--root", "/nonexistent/root.cer"], "--root"),
    ])
    func optionsThatDoNotApplyAreUsageErrors(arguments: [String], option: String) async throws {
        let run = try await CommandLine.run(arguments, stdin: Data(try Self.signed()).base64EncodedString())
        #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(option), "\(run.stderr)")
    }
}

/// Real receipts from `../shared/vectors/receipts`: each gets the verdict `MANIFEST.tsv` gives
/// it, with the file its notes name as the only `--root`, at its creation date.
@Suite(.serialized, .enabled(if: Vectors.available, Vectors.skipNote))
struct VerifyReceiptVectorTests {
    static let rows: [[String: String]] = ((try? Vectors.manifest("receipts/MANIFEST.tsv")) ?? [])
        .filter { !($0["expected"] ?? "").hasPrefix("n/a") }

    /// What the manifest's reasons mean, as codes.
    static let codes: [String: String] = [
        "not a PKCS#7 receipt (format)": "malformed_receipt",
        "intermediate lacks WWDR marker OID 1.2.840.113635.100.6.2.1": "missing_apple_oid",
        "leaf lacks receipt-signing marker OID 1.2.840.113635.100.6.11.1": "missing_apple_oid",
        "chain expired at creation date": "certificate_expired",
        "chain does not lead to the trust anchor": "untrusted_chain",
    ]

    /// No bundle identifier, app version or device check, as the manifest's verdicts assume.
    static let everyEnvironment = ["--environment", "Production", "--environment", "Sandbox", "--environment", "Xcode"]

    @Test func manifestListsEveryReceipt() {
        #expect(Self.rows.count == 23)
        #expect(Self.rows.filter { $0["expected"] == "valid_at_creation" }.count == 10)
    }

    @Test(arguments: rows.map { $0["file"] ?? "" })
    func receiptGetsItsExpectedVerdict(file: String) async throws {
        let row = try #require(Self.rows.first { $0["file"] == file })
        var arguments = ["verify", "--kind", "receipt", "--root", try Vectors.path("receipts/\(try Self.anchor(row))")] + Self.everyEnvironment
        let created = row["receipt_creation_date"] ?? ""
        if created != "unknown" { arguments += ["--at", created] }
        let run = try await CommandLine.run(arguments + [try Vectors.path("receipts/\(file)")])
        let verdict = CommandLine.json(run.stdout)
        let expected = row["expected"] ?? ""

        if expected == "valid_at_creation" {
            #expect(run.status == 0, "\(file): \(run.stdout)")
            #expect(verdict["validation_time"] as? String == created)
            #expect(verdict["origin"] as? String == (row["environment"] == "Xcode" ? "xcode_self_signed" : "certificate_chain"))
            let payload = try #require(verdict["payload"] as? [String: Any], "\(file): \(run.stdout)")
            #expect(payload["bundle_id"] as? String == row["bundle_id"])
            #expect(payload["receipt_type"] as? String == row["environment"])
            #expect(payload["receipt_creation_date"] as? String == created)
            let purchases = try #require(payload["in_app"] as? [[String: Any]])
            #expect(purchases.count == Int(row["in_app_count"] ?? ""))
            #expect(purchases.allSatisfy { $0["transaction_id"] is String && $0["product_id"] is String && $0["purchase_date"] is String })
        } else {
            #expect(run.status == 1, "\(file): \(run.stdout) \(run.stderr)")
            let reasons = expected.dropFirst("invalid: ".count).components(separatedBy: " | ")
            let acceptable = Set(try reasons.map { reason in try #require(Self.codes[reason], "no code for manifest reason '\(reason)'") })
            let code = try #require(verdict["code"] as? String, "\(file) verified, expected \(expected): \(run.stdout)")
            #expect(acceptable.contains(code), "\(file): \(run.stdout)")
        }
    }

    /// Without --root and --at: Apple's receipts verify against the bundled Apple Root CA at
    /// their creation date, Xcode's are refused, and checked now every Apple one has expired.
    @Test func theBundledRootAndTheCreationDateAreTheDefaults() async throws {
        let signed = Self.rows.filter { $0["expected"] == "valid_at_creation" }
        #expect(signed.count == 10)
        for row in signed {
            let path = try Vectors.path("receipts/\(row["file"] ?? "")")
            let run = try await CommandLine.run(["verify", "--kind", "receipt"] + Self.everyEnvironment + [path])
            let now = try await CommandLine.run(["verify", "--kind", "receipt", "--at", "now"] + Self.everyEnvironment + [path])
            if row["environment"] == "Xcode" {
                #expect(CommandLine.json(run.stdout)["code"] as? String == "untrusted_chain", "\(row["file"] ?? ""): \(run.stdout)")
            } else {
                #expect(run.status == 0, "\(row["file"] ?? ""): \(run.stdout)")
                #expect(CommandLine.json(now.stdout)["code"] as? String == "certificate_expired", "\(row["file"] ?? ""): \(now.stdout)")
            }
        }
    }

    static func anchor(_ row: [String: String]) throws -> String {
        let notes = row["notes"] ?? ""
        guard notes.hasPrefix("anchor="), let end = notes.firstIndex(of: ";") else { throw CocoaError(.fileReadCorruptFile) }
        return String(notes[notes.index(notes.startIndex, offsetBy: 7)..<end])
    }
}
