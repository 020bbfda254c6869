import Foundation
import TallyTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tally import` against `tally appstore serve`, as an operator moving customers would run it.
@Suite(.serialized) struct ImportCommandTests {
    let folder: URL

    init() throws { folder = try TemporaryFolder().url }

    @Test func aCustomerIsImportedOnceADryRunChangesNothingAndBadInputIsAUsageError() async throws {
        let caDir = folder.appendingPathComponent("ca").path
        let (store, port) = try ServeCommandTests.serve(["appstore", "serve", "--ca-dir", caDir])
        defer { store.terminate() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/control/purchases")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"product_id":"com.tally.photo.credits.50"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let bought = try #require((try JSONSerialization.jsonObject(with: data)) as? [String: Any])
        let transactionID = try #require(bought["transaction_id"] as? String)

        let ids = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: caDir + "/api-key.json"))) as? [String: String]
        let customers = folder.appendingPathComponent("customers.txt")
        try Data("# moved from the old backend\nalice,\(transactionID)\n".utf8).write(to: customers)
        let database = folder.appendingPathComponent("tally.sqlite").path
        let arguments = [
            "import", "--dev", "--trust-ca-dir", caDir, "--database", database, "--original-transaction-ids", customers.path,
            "--apple-key", caDir + "/api-key.pem", "--apple-key-id", ids?["key_id"] ?? "", "--apple-issuer-id", ids?["issuer_id"] ?? "",
            "--apple-api-url", "http://127.0.0.1:\(port)",
        ]

        let dry = try await CommandLine.run(arguments + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stdout) \(dry.stderr)")
        #expect(CommandLine.json(dry.stdout)["new"] as? Int == 1, "\(dry.stdout)")
        #expect(CommandLine.json(dry.stdout)["dry_run"] as? Bool == true)

        let done = try await CommandLine.run(arguments)
        #expect(done.status == 0, "\(done.stdout) \(done.stderr)")
        #expect(CommandLine.json(done.stdout)["new"] as? Int == 1, "\(done.stdout)")
        let again = try await CommandLine.run(arguments)
        #expect(CommandLine.json(again.stdout)["new"] as? Int == 0, "\(again.stdout)")
        #expect(CommandLine.json(again.stdout)["known"] as? Int == 1, "\(again.stdout)")

        let check = try await CommandLine.run(["check", "--database", database])
        #expect(check.status == 0, "\(check.stdout)")

        let noKey = try await CommandLine.run(["import", "--database", database, "--original-transaction-ids", customers.path])
        #expect(noKey.status == 2, "a usage error: \(noKey.stderr)")
        try Data("alice,not-a-number\n".utf8).write(to: customers)
        let bad = try await CommandLine.run(arguments)
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.contains("line 1"), "\(bad.stderr)")
    }
}
