import Foundation
import TallyTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tally appstore` as a user runs it: serve, buy with one HTTP call, verify with `tally verify`.
@Suite(.serialized) struct AppStoreCommandTests {
    let folder: URL

    init() throws { folder = try TemporaryFolder().url }

    @Test func purchasePrintsATransactionThatVerifiesWithTheFoldersRoot() async throws {
        let caDir = folder.appendingPathComponent("ca").path
        let purchase = try await CommandLine.run([
            "appstore", "purchase", "--ca-dir", caDir, "--product", "com.tally.photo.credits.50",
            "--account-token", "5c0b6f2e-8d5e-4c55-9a38-2f1c0d9e7b41", "--quantity", "2",
        ])
        #expect(purchase.status == 0, "\(purchase.stderr)")
        let jws = purchase.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let verify = try await CommandLine.run(
            [
                "verify", "--kind", "transaction", "--root", caDir + "/root.cer", "--environment", "Sandbox",
                "--bundle-id", "com.tally.example",
            ], stdin: jws)
        #expect(verify.status == 0, "\(verify.stdout)")
        let payload = CommandLine.json(verify.stdout)["payload"] as? [String: Any]
        #expect(payload?["quantity"] as? Int == 2)
        #expect(payload?["productId"] as? String == "com.tally.photo.credits.50")
        // A second run makes a different transaction.
        let second = try await CommandLine.run(["appstore", "purchase", "--ca-dir", caDir, "--product", "com.tally.photo.credits.50"])
        #expect(second.stdout != purchase.stdout)
    }

    @Test func purchaseOfAnUnknownProductFails() async throws {
        let run = try await CommandLine.run(["appstore", "purchase", "--ca-dir", folder.appendingPathComponent("ca2").path, "--product", "nope"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("product_unavailable"))
    }

    @Test func serveBuyOverHTTPThenVerify() async throws {
        let caDir = folder.appendingPathComponent("served").path
        let (server, port) = try ServeCommandTests.serve(["appstore", "serve", "--ca-dir", caDir])
        defer { server.terminate() }

        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/control/purchases")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"product_id":"com.tally.zorya.report.career"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let answer = (try JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let jws = try #require(answer?["signed_transaction"] as? String)
        let verify = try await CommandLine.run(["verify", "--kind", "transaction", "--root", caDir + "/root.cer", "--environment", "Sandbox"], stdin: jws)
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(FileManager.default.fileExists(atPath: caDir + "/store-state.json"))
    }
}
