import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import Testing

/// `tally verify` as a user runs it: output shape, exit codes, batches, roots.
@Suite(.serialized) struct VerifyCommandTests {
    let folder: URL
    let ca: TestCertificateAuthority
    let rootPath: String

    init() throws {
        folder = try TemporaryFolder().url
        ca = try TestCertificateAuthority(profile: .init(issuedAt: Date(timeIntervalSince1970: 1_717_200_000)))
        rootPath = folder.appendingPathComponent("root.cer").path
        try Data(ca.rootDER).write(to: URL(fileURLWithPath: rootPath))
    }

    func transaction(_ id: String, bundle: String = "com.example") throws -> String {
        var payload = TransactionPayload()
        payload.transactionID = id
        payload.bundleID = bundle
        payload.environment = .sandbox
        payload.signedDate = Date(timeIntervalSince1970: 1_717_300_000)
        return try ca.sign(payload)
    }

    @Test func validDataPrintsThePayloadAndExitsZero() async throws {
        let run = try await CommandLine.run(
            ["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--bundle-id", "com.example"],
            stdin: try transaction("42") + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        let verdict = CommandLine.json(run.stdout)
        #expect(verdict["status"] as? String == "valid")
        #expect((verdict["payload"] as? [String: Any])?["transactionId"] as? String == "42")
        #expect((verdict["unchecked"] as? [String]) == ["app_apple_id"])
    }

    @Test(arguments: ["transaction", "renewal", "app-transaction"])
    func eachKindOfJWSIsVerifiedAsThatKind(kind: String) async throws {
        let signed = Date(timeIntervalSince1970: 1_717_300_000)
        let jws: String
        switch kind {
        case "renewal":
            var payload = RenewalInfoPayload()
            payload.originalTransactionID = "7"
            payload.environment = .sandbox
            payload.signedDate = signed
            jws = try ca.sign(payload)
        case "app-transaction":
            var payload = AppTransactionPayload()
            payload.bundleID = "com.example"
            payload.receiptType = .sandbox
            payload.receiptCreationDate = signed
            jws = try ca.sign(payload)
        default:
            jws = try transaction("7")
        }
        let run = try await CommandLine.run(["verify", "--kind", kind, "--root", rootPath, "--environment", "Sandbox"], stdin: jws)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let verdict = CommandLine.json(run.stdout)
        #expect(verdict["status"] as? String == "valid")
        #expect(verdict["kind"] as? String == kind)
    }

    @Test func invalidDataPrintsTheCodeAndExitsOne() async throws {
        let run = try await CommandLine.run(
            ["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--bundle-id", "com.other"],
            stdin: try transaction("42"))
        #expect(run.status == 1)
        let verdict = CommandLine.json(run.stdout)
        #expect(verdict["status"] as? String == "invalid")
        #expect(verdict["code"] as? String == "wrong_bundle_id")
        #expect((verdict["message"] as? String)?.isEmpty == false)
    }

    @Test func withoutARootOnlyAppleIsTrusted() async throws {
        let run = try await CommandLine.run(["verify", "--kind", "transaction", "--environment", "Sandbox"], stdin: try transaction("1"))
        #expect(run.status == 1)
        #expect(CommandLine.json(run.stdout)["code"] as? String == "untrusted_chain")
    }

    @Test func jsonlAnswersEachLineInOrder() async throws {
        let lines = [try transaction("1"), "not-a-jws", try transaction("3", bundle: "com.other"), try transaction("4")]
        let file = folder.appendingPathComponent("batch.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let run = try await CommandLine.run([
            "verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox",
            "--bundle-id", "com.example", "--jsonl", file.path,
        ])
        #expect(run.status == 1)
        let verdicts = run.stdout.split(separator: "\n").map(CommandLine.json)
        #expect(verdicts.map { $0["status"] as? String } == ["valid", "invalid", "invalid", "valid"])
        #expect(verdicts.map { $0["code"] as? String } == [nil, "malformed_jws", "wrong_bundle_id", nil])
    }

    @Test func jsonlReadsCRLFLinesAndAnswersBlankLinesToo() async throws {
        let file = folder.appendingPathComponent("crlf.jsonl")
        try Data((try transaction("1") + "\r\n\r\n" + (try transaction("3")) + "\r\n").utf8).write(to: file)
        let run = try await CommandLine.run(["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--jsonl", file.path])
        let verdicts = run.stdout.split(separator: "\n").map(CommandLine.json)
        #expect(verdicts.map { $0["status"] as? String } == ["valid", "invalid", "valid"])
        #expect(verdicts[1]["code"] as? String == "malformed_jws")
    }

    /// A JWS whose header names an algorithm full of characters JSON must escape: its verdict's message quotes it.
    static func oddAlgorithm() -> String {
        let header = Data(#"{"alg":"HS\"/\\\u0001é\u2028","typ":"JWT"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return header + ".e30.c2lnbmF0dXJl"
    }

    func transaction(_ id: String, product: String) throws -> String {
        var payload = TransactionPayload()
        payload.transactionID = id
        payload.bundleID = "com.example"
        payload.productID = product
        payload.environment = .sandbox
        payload.signedDate = Date(timeIntervalSince1970: 1_717_300_000.123)
        return try ca.sign(payload)
    }

    @Test func jsonlPrintsForEachLineWhatTheSingleCommandPrintsForIt() async throws {
        let lines = [
            try transaction("1"), "not-a-jws", "", "  \t" + (try transaction("2")) + " \r", try transaction("3", bundle: "com.other"),
            try transaction("4", product: "com.example/credits.10 — «ünïcode» \"quoted\" \\ \u{7F}"), Self.oddAlgorithm(),
            "\u{A0}" + (try transaction("5")) + "\u{2028}", "a.b", "...", String(repeating: "x", count: 70_000),
        ]
        let file = folder.appendingPathComponent("batch.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let arguments = ["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--bundle-id", "com.example"]
        let batch = try await CommandLine.run(arguments + ["--jsonl", "--jobs", "1", file.path])
        #expect(batch.status == 1)
        let printed = batch.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(printed.count == lines.count + 1 && printed.last == "", "\(batch.stdout)")
        for (line, verdict) in zip(lines, printed) {
            let single = try await CommandLine.run(arguments, stdin: line)
            #expect(single.stdout == verdict + "\n", "\(line.prefix(80).debugDescription)")
            #expect(single.status == (verdict.hasPrefix(#"{"status":"valid""#) ? 0 : 1))
        }
        // Four transactions are signed for the app; the one whose product identifier holds
        // characters an identifier cannot have is refused, its message escaped as JSON.
        #expect(printed.filter { $0.hasPrefix(#"{"status":"valid""#) }.count == 3)
        #expect(printed[5].hasPrefix(#"{"status":"invalid","code":"invalid_identifier","#), "\(printed[5])")
        // Verifying several at once prints the same bytes in the same order.
        for jobs in ["2", "3", "16"] {
            let parallel = try await CommandLine.run(arguments + ["--jsonl", "--jobs", jobs, file.path])
            #expect(parallel.stdout == batch.stdout, "--jobs \(jobs)")
            #expect(parallel.status == 1)
        }
        // Standard input reads the same as a file.
        let piped = try await CommandLine.run(arguments + ["--jsonl"], stdin: lines.joined(separator: "\n"))
        #expect(piped.stdout == batch.stdout)
    }

    @Test func aValidVerdictIsThePayloadAsSignedWithTheValidationTime() async throws {
        let jws = try transaction("42", product: "com.example.credits_10")
        let segment = String(jws.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let payload = try #require(Data(base64Encoded: segment + String(repeating: "=", count: (4 - segment.count % 4) % 4)))
        let run = try await CommandLine.run(["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox"], stdin: jws)
        #expect(run.status == 0)
        // The signed date is 2024-06-02T03:46:40.123Z; the validation time is shown in whole seconds.
        #expect(
            run.stdout == #"{"status":"valid","kind":"transaction","origin":"certificate_chain","validation_time":"2024-06-02T03:46:40Z","#
                + #""unchecked":["bundle_id","app_apple_id"],"payload":"# + String(decoding: payload, as: UTF8.self) + "}\n")
    }

    @Test func anInvalidVerdictEscapesItsMessageAsJSON() async throws {
        let run = try await CommandLine.run(["verify", "--kind", "transaction", "--environment", "Sandbox"], stdin: Self.oddAlgorithm())
        #expect(run.status == 1)
        let verdict = CommandLine.json(run.stdout)
        #expect(verdict["code"] as? String == "unsupported_algorithm")
        #expect((verdict["message"] as? String)?.contains("HS\"/\\\u{1}é\u{2028}") == true, "\(run.stdout)")
        #expect(run.stdout.contains(#"HS\"\/\\\u0001é"#), "\(run.stdout)")
    }

    @Test func anExplicitTimeIsUsed() async throws {
        let run = try await CommandLine.run(
            ["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--at", "2060-01-01T00:00:00Z"],
            stdin: try transaction("1"))
        #expect(CommandLine.json(run.stdout)["code"] as? String == "certificate_expired")
    }

    @Test(arguments: [
        ["verify", "--kind", "bundle"],
        ["verify", "--kind", "transaction", "--environment", "Staging"],
        ["verify", "--kind", "transaction", "--at", "yesterday"],
        ["verify", "--kind", "transaction", "--root", "/nonexistent/root.cer"],
        ["verify", "--kind", "transaction", "--jsonl", "--jobs", "0"],
        ["verify", "--kind", "transaction", "/nonexistent/batch.jsonl"],
    ])
    func usageErrorsExitTwo(arguments: [String]) async throws {
        let run = try await CommandLine.run(arguments, stdin: "")
        #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
        #expect(!run.stderr.isEmpty)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: CommandLine.repository.appendingPathComponent("Examples/verify/transaction-sandbox.jws").path)))
    func theShippedExampleVerifies() async throws {
        let run = try await CommandLine.run([
            "verify", "--kind", "transaction", "--root", "Examples/verify/example-root.cer", "--environment", "Sandbox",
            "--bundle-id", "com.tally.example", "Examples/verify/transaction-sandbox.jws",
        ])
        #expect(run.status == 0, "\(run.stdout)")
        // The same example is refused against Apple's root: the example root is trusted only when named.
        let apple = try await CommandLine.run([
            "verify", "--kind", "transaction", "--environment", "Sandbox", "Examples/verify/transaction-sandbox.jws",
        ])
        #expect(CommandLine.json(apple.stdout)["code"] as? String == "untrusted_chain")
    }
}
