import Foundation
import TallyTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tally appstore receipt` as a user runs it: buy with StoreKit 1 through `tally appstore
/// serve`, print the device's receipt, verify it with `tally verify --kind receipt`.
@Suite(.serialized) struct AppStoreReceiptCommandTests {
    let folder: URL

    init() throws { folder = try TemporaryFolder().url }
    static let device = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

    @Test func theReceiptOfAStoreKit1PurchaseVerifiesForItsDeviceOnly() async throws {
        let caDir = folder.appendingPathComponent("ca").path
        let (server, port) = try ServeCommandTests.serve(["appstore", "serve", "--ca-dir", caDir])
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/control/purchases")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"product_id":"com.tally.zorya.lifetime","storekit":1,"device_id":"\#(Self.device)"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        server.terminate()
        server.waitUntilExit()
        let answer = (try JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let transactionID = try #require(answer?["transaction_id"] as? String)
        #expect(FileManager.default.fileExists(atPath: caDir + "/receipt-root.cer"))

        let printed = try await CommandLine.run(["appstore", "receipt", "--ca-dir", caDir, "--device-id", Self.device])
        #expect(printed.status == 0, "\(printed.stderr)")
        let receipt = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(receipt == answer?["receipt"] as? String)

        let verify = ["verify", "--kind", "receipt", "--root", caDir + "/receipt-root.cer", "--environment", "Sandbox", "--bundle-id", "com.tally.example"]
        let valid = try await CommandLine.run(verify + ["--device-id", Self.device], stdin: receipt)
        #expect(valid.status == 0, "\(valid.stdout)")
        let inApp = (CommandLine.json(valid.stdout)["payload"] as? [String: Any])?["in_app"] as? [[String: Any]]
        #expect(inApp?.compactMap { $0["transaction_id"] as? String } == [transactionID])
        let otherDevice = try await CommandLine.run(verify + ["--device-id", "0F8FAD5B-D9CB-469F-A165-70867728950E"], stdin: receipt)
        #expect(otherDevice.status != 0)
        #expect(CommandLine.json(otherDevice.stdout)["code"] as? String == "device_hash_mismatch")
        // The JWS root does not vouch for receipts.
        let wrongRoot = try await CommandLine.run(["verify", "--kind", "receipt", "--root", caDir + "/root.cer", "--environment", "Sandbox"], stdin: receipt)
        #expect(CommandLine.json(wrongRoot.stdout)["code"] as? String == "untrusted_chain")
    }

    @Test func aServerInDevelopmentTrustsTheSimulatorsReceiptRootAndGrantsOnce() async throws {
        let caDir = folder.appendingPathComponent("served").path
        let (store, storePort) = try ServeCommandTests.serve(["appstore", "serve", "--ca-dir", caDir])
        defer { store.terminate() }
        let database = folder.appendingPathComponent("tally.sqlite").path
        let (server, port) = try ServeCommandTests.serve(["serve", "--dev", "--trust-ca-dir", caDir, "--database", database])
        defer { server.terminate() }
        let base = "http://127.0.0.1:\(port)"
        let (_, user) = try await ServeCommandTests.request("POST", base + "/v1/users")
        let token = try #require(user["user_token"] as? String)
        let accountToken = try #require(user["app_account_token"] as? String)

        let (_, bought) = try await ServeCommandTests.request(
            "POST", "http://127.0.0.1:\(storePort)/control/purchases",
            body: #"{"product_id":"com.tally.photo.credits.50","storekit":1,"device_id":"\#(Self.device)","application_username":"\#(accountToken)"}"#)
        let receipt = try #require(bought["receipt"] as? String)
        let transactionID = try #require(bought["transaction_id"] as? String)
        let jws = try #require(bought["signed_transaction"] as? String)

        let (status, delivered) = try await ServeCommandTests.request(
            "POST", base + "/v1/me/purchases", token: token, body: #"{"receipt":"\#(receipt)","transaction_id":"\#(transactionID)"}"#)
        #expect(status == 200, "\(delivered)")
        #expect(delivered["replayed"] as? Bool == false)
        // The same purchase as a JWS afterwards: a replay, nothing more granted.
        let (_, again) = try await ServeCommandTests.request("POST", base + "/v1/me/purchases", token: token, body: #"{"signed_transaction":"\#(jws)"}"#)
        #expect(again["replayed"] as? Bool == true)
        let (_, me) = try await ServeCommandTests.request("GET", base + "/v1/me", token: token)
        let credits = (me["balances"] as? [[String: Any]])?.first { $0["currency"] as? String == "credits" }
        #expect(credits?["available"] as? Int == 52, "\(me)")
    }

    @Test func aDeviceWithoutPurchasesGetsAnEmptyReceiptAndABadIdentifierIsRefused() async throws {
        let caDir = folder.appendingPathComponent("empty").path
        let printed = try await CommandLine.run(["appstore", "receipt", "--ca-dir", caDir, "--device-id", Self.device, "--refresh"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let verify = try await CommandLine.run(
            ["verify", "--kind", "receipt", "--root", caDir + "/receipt-root.cer", "--environment", "Sandbox", "--device-id", Self.device],
            stdin: printed.stdout)
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(((CommandLine.json(verify.stdout)["payload"] as? [String: Any])?["in_app"] as? [Any])?.isEmpty == true)
        let refused = try await CommandLine.run(["appstore", "receipt", "--ca-dir", caDir, "--device-id", "not-a-device"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--device-id"))
    }
}
