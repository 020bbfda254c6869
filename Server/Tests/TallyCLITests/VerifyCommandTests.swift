import Foundation
import TallyCore
import TallyTesting
import Testing

/// `tally verify` as a user runs it: output shape, exit codes, batches, roots.
@Suite(.serialized) struct VerifyCommandTests {
    let folder: URL
    let ca: TestCertificateAuthority
    let rootPath: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tally-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        ca = try TestCertificateAuthority(profile: .init(issuedAt: Date(timeIntervalSince1970: 1_717_200_000)))
        rootPath = folder.appendingPathComponent("root.cer").path
        try Data(ca.rootDER).write(to: URL(fileURLWithPath: rootPath))
    }

    func transaction(_ id: String, bundle: String = "com.example") throws -> String {
        var payload = TransactionPayload()
        payload.transactionId = id
        payload.bundleId = bundle
        payload.environment = .sandbox
        payload.signedDate = Date(timeIntervalSince1970: 1_717_300_000)
        return try ca.sign(payload)
    }

    @Test func validDataPrintsThePayloadAndExitsZero() throws {
        let run = try CommandLine.run(
            ["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--bundle-id", "com.example"],
            stdin: try transaction("42") + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        let verdict = CommandLine.json(run.stdout)
        #expect(verdict["status"] as? String == "valid")
        #expect((verdict["payload"] as? [String: Any])?["transactionId"] as? String == "42")
        #expect((verdict["unchecked"] as? [String]) == ["app_apple_id"])
    }

    @Test func invalidDataPrintsTheCodeAndExitsOne() throws {
        let run = try CommandLine.run(
            ["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--bundle-id", "com.other"],
            stdin: try transaction("42"))
        #expect(run.status == 1)
        let verdict = CommandLine.json(run.stdout)
        #expect(verdict["status"] as? String == "invalid")
        #expect(verdict["code"] as? String == "wrong_bundle_id")
        #expect((verdict["message"] as? String)?.isEmpty == false)
    }

    @Test func withoutARootOnlyAppleIsTrusted() throws {
        let run = try CommandLine.run(["verify", "--kind", "transaction", "--environment", "Sandbox"], stdin: try transaction("1"))
        #expect(run.status == 1)
        #expect(CommandLine.json(run.stdout)["code"] as? String == "untrusted_chain")
    }

    @Test func jsonlAnswersEachLineInOrder() throws {
        let lines = [try transaction("1"), "not-a-jws", try transaction("3", bundle: "com.other"), try transaction("4")]
        let file = folder.appendingPathComponent("batch.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let run = try CommandLine.run(["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox",
                                       "--bundle-id", "com.example", "--jsonl", file.path])
        #expect(run.status == 1)
        let verdicts = run.stdout.split(separator: "\n").map(CommandLine.json)
        #expect(verdicts.map { $0["status"] as? String } == ["valid", "invalid", "invalid", "valid"])
        #expect(verdicts.map { $0["code"] as? String } == [nil, "malformed_jws", "wrong_bundle_id", nil])
    }

    @Test func jsonlReadsCRLFLinesAndAnswersBlankLinesToo() throws {
        let file = folder.appendingPathComponent("crlf.jsonl")
        try Data((try transaction("1") + "\r\n\r\n" + (try transaction("3")) + "\r\n").utf8).write(to: file)
        let run = try CommandLine.run(["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--jsonl", file.path])
        let verdicts = run.stdout.split(separator: "\n").map(CommandLine.json)
        #expect(verdicts.map { $0["status"] as? String } == ["valid", "invalid", "valid"])
        #expect(verdicts[1]["code"] as? String == "malformed_jws")
    }

    @Test func anExplicitTimeIsUsed() throws {
        let run = try CommandLine.run(
            ["verify", "--kind", "transaction", "--root", rootPath, "--environment", "Sandbox", "--at", "2060-01-01T00:00:00Z"],
            stdin: try transaction("1"))
        #expect(CommandLine.json(run.stdout)["code"] as? String == "certificate_expired")
    }

    @Test(arguments: [
        ["verify", "--kind", "receipt"],
        ["verify", "--kind", "transaction", "--environment", "Staging"],
        ["verify", "--kind", "transaction", "--at", "yesterday"],
        ["verify", "--kind", "transaction", "--root", "/nonexistent/root.cer"],
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let run = try CommandLine.run(arguments, stdin: "")
        #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
        #expect(!run.stderr.isEmpty)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: CommandLine.repository.appendingPathComponent("Examples/verify/transaction-sandbox.jws").path)))
    func theShippedExampleVerifies() throws {
        let run = try CommandLine.run([
            "verify", "--kind", "transaction", "--root", "Examples/verify/example-root.cer", "--environment", "Sandbox",
            "--bundle-id", "com.tally.example", "Examples/verify/transaction-sandbox.jws",
        ])
        #expect(run.status == 0, "\(run.stdout)")
        // The same example is refused against Apple's root: the example root is trusted only when named.
        let apple = try CommandLine.run([
            "verify", "--kind", "transaction", "--environment", "Sandbox", "Examples/verify/transaction-sandbox.jws",
        ])
        #expect(CommandLine.json(apple.stdout)["code"] as? String == "untrusted_chain")
    }
}
