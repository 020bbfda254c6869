import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import TallyTesting
import TallyVerify
import Testing

/// `POST /v1/me/purchases` and `/v1/me/restore` with an app receipt (StoreKit 1), as a device
/// posts them: verified against the configured receipt roots, granted once under the same
/// transaction id as the JWS path, and refused with stable codes, changing nothing.
@Suite struct ReceiptPurchaseAPITests {
    /// A server on SQLite whose receipt verifier trusts the simulated store's receipt root, or
    /// the one `buildApplication` builds from the catalog when `receiptVerifier` is nil.
    static func server(_ api: API, receiptVerifier: ReceiptVerifier?) -> ServerConfiguration {
        var configuration = API.configuration(harness: api.harness, database: api.database)
        configuration.receiptVerifier = receiptVerifier
        return configuration
    }

    static func receiptBody(_ receipt: String, _ transactionID: String, orderID: String? = nil) -> ByteBuffer {
        API.body(PurchaseRequest(receipt: receipt, transactionID: transactionID, orderID: orderID))
    }

    static func verificationCode(_ response: TestResponse) -> String? {
        (API.json(response)["error"] as? [String: Any])?["verification_code"] as? String
    }

    @Test func aReceiptPurchaseGrantsOnceAndItsJWSIsThenAReplay() async throws {
        let api = try await API()
        let sk1 = try StoreKit1Store()
        try await buildApplication(configuration: Self.server(api, receiptVerifier: sk1.receiptVerifier)).test(.router) { client in
            let user = try await client.newUser()
            let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.50", username: user.appAccountToken)
            let first = try await client.post("/v1/me/purchases", token: user.userToken, body: Self.receiptBody(receipt.base64, transaction.transactionID))
            #expect(first.status == .ok)
            let delivered = try API.decode(PurchaseResponse.self, first)
            #expect(delivered.granted == [Amount(currency: "credits", amount: 50)])
            #expect(!delivered.replayed)
            let again = try API.decode(
                PurchaseResponse.self,
                try await client.post("/v1/me/purchases", token: user.userToken, body: Self.receiptBody(receipt.base64, transaction.transactionID)))
            #expect(again.replayed)
            let byJWS = try API.decode(
                PurchaseResponse.self,
                try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: transaction.jws))))
            #expect(byJWS.replayed)
            #expect(byJWS.transactionID == transaction.transactionID)
            let account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(account.balances.first { $0.currency == "credits" }?.available == 52)
        }
        try await api.harness.checkInvariants()
    }

    @Test func aJWSThenTheReceiptIsReplayed() async throws {
        let api = try await API()
        let sk1 = try StoreKit1Store()
        try await buildApplication(configuration: Self.server(api, receiptVerifier: sk1.receiptVerifier)).test(.router) { client in
            let user = try await client.newUser()
            let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.10", username: user.appAccountToken)
            let byJWS = try API.decode(
                PurchaseResponse.self,
                try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: transaction.jws))))
            #expect(!byJWS.replayed)
            let byReceipt = try API.decode(
                PurchaseResponse.self,
                try await client.post("/v1/me/purchases", token: user.userToken, body: Self.receiptBody(receipt.base64, transaction.transactionID)))
            #expect(byReceipt.replayed)
            #expect(byReceipt.balances.first { $0.currency == "credits" }?.available == 12)
        }
    }

    @Test func aReceiptPaysTheOrderItNames() async throws {
        let api = try await API()
        let sk1 = try StoreKit1Store()
        try await buildApplication(configuration: Self.server(api, receiptVerifier: sk1.receiptVerifier)).test(.router) { client in
            let user = try await client.newUser()
            let order = try API.decode(
                Order.self,
                try await client.post("/v1/me/orders", token: user.userToken, body: API.body(CreateOrderRequest(productID: "com.tally.photo.credits.10"))))
            let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.10", username: order.appAccountToken)
            let response = try await client.post(
                "/v1/me/purchases", token: user.userToken, body: Self.receiptBody(receipt.base64, transaction.transactionID, orderID: order.orderID))
            #expect(response.status == .ok)
            let paid = try API.decode(Order.self, try await client.get("/v1/me/orders/\(order.orderID)", token: user.userToken))
            #expect(paid.status == .fulfilled)
            #expect(paid.transactionID == transaction.transactionID)
        }
    }

    /// Each refusal: its status, code and verification code; the balance is what sign-up gave.
    @Test func badReceiptsAreRefusedWithStableCodesAndChangeNothing() async throws {
        let api = try await API()
        let sk1 = try StoreKit1Store()
        let otherApp = try StoreKit1Store(bundleID: "com.example.other")
        try await buildApplication(configuration: Self.server(api, receiptVerifier: sk1.receiptVerifier)).test(.router) { client in
            let user = try await client.newUser()
            let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.100")
            let (foreign, foreignReceipt) = try await otherApp.buy("com.tally.photo.credits.100")
            var flipped = receipt.bytes
            flipped[flipped.count - 10] ^= 0x01
            let cases: [(String, ByteBuffer, HTTPResponse.Status, String, String?)] = [
                ("unknown transaction", Self.receiptBody(receipt.base64, "2000000999999999"), .unprocessableContent, "transaction_not_in_receipt", nil),
                (
                    "wrong bundle", Self.receiptBody(foreignReceipt.base64, foreign.transactionID), .unprocessableContent, "verification_failed",
                    "wrong_bundle_id"
                ),
                (
                    "garbage", Self.receiptBody(Data("not a receipt".utf8).base64EncodedString(), transaction.transactionID), .unprocessableContent,
                    "verification_failed", "malformed_receipt"
                ),
                ("not base64", Self.receiptBody("%%%", transaction.transactionID), .unprocessableContent, "verification_failed", "malformed_receipt"),
                (
                    "bad signature", Self.receiptBody(Data(flipped).base64EncodedString(), transaction.transactionID), .unprocessableContent,
                    "verification_failed", "bad_signature"
                ),
                ("malformed transaction id", Self.receiptBody(receipt.base64, "12ab"), .badRequest, "invalid_request", nil),
                ("no transaction id", ByteBuffer(string: #"{"receipt":"\#(receipt.base64)"}"#), .badRequest, "invalid_request", nil),
                (
                    "both forms",
                    ByteBuffer(
                        string: #"{"receipt":"\#(receipt.base64)","transaction_id":"\#(transaction.transactionID)","signed_transaction":"\#(transaction.jws)"}"#
                    ),
                    .badRequest, "invalid_request", nil
                ),
                ("neither form", ByteBuffer(string: #"{"order_id":"o1"}"#), .badRequest, "invalid_request", nil),
                ("a null receipt", ByteBuffer(string: #"{"signed_transaction":"\#(transaction.jws)","receipt":null}"#), .badRequest, "invalid_request", nil),
                (
                    "JWS with a transaction id", ByteBuffer(string: #"{"signed_transaction":"\#(transaction.jws)","transaction_id":"1"}"#), .badRequest,
                    "invalid_request", nil
                ),
            ]
            for (name, body, status, code, verificationCode) in cases {
                let response = try await client.post("/v1/me/purchases", token: user.userToken, body: body)
                #expect(response.status == status, "\(name)")
                #expect(API.errorCode(response) == code, "\(name)")
                #expect(Self.verificationCode(response) == verificationCode, "\(name)")
            }
            let account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(account.balances.first { $0.currency == "credits" }?.available == 2)
        }
        try await api.harness.checkInvariants()
    }

    @Test func theSimulatorsReceiptRootIsTrustedOnlyWhenConfigured() async throws {
        let api = try await API()
        let sk1 = try StoreKit1Store()
        // The verifier built from the catalog trusts Apple Root CA only...
        try await buildApplication(configuration: Self.server(api, receiptVerifier: nil)).test(.router) { client in
            let user = try await client.newUser()
            let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.10")
            let response = try await client.post("/v1/me/purchases", token: user.userToken, body: Self.receiptBody(receipt.base64, transaction.transactionID))
            #expect(response.status == .unprocessableContent)
            #expect(Self.verificationCode(response) == "untrusted_chain")
        }
        // ...and the simulator's receipt root too in development, when it is given explicitly.
        var development = Self.server(api, receiptVerifier: nil)
        development.development = true
        development.testRoots = [Harness.authority.root, StoreKit1Store.receiptAuthority.root]
        try await buildApplication(configuration: development).test(.router) { client in
            let user = try await client.newUser()
            let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.10")
            let response = try await client.post("/v1/me/purchases", token: user.userToken, body: Self.receiptBody(receipt.base64, transaction.transactionID))
            #expect(response.status == .ok)
            #expect(try API.decode(PurchaseResponse.self, response).granted == [Amount(currency: "credits", amount: 10)])
        }
    }

    @Test func restoreDeliversEveryPurchaseInTheReceipt() async throws {
        let api = try await API()
        let sk1 = try StoreKit1Store()
        try await buildApplication(configuration: Self.server(api, receiptVerifier: sk1.receiptVerifier)).test(.router) { client in
            let user = try await client.newUser()
            let (credits, _) = try await sk1.buy("com.tally.photo.credits.10")
            let (lifetime, _) = try await sk1.buy("com.tally.zorya.lifetime")
            let (jwsOnly, receipt) = try await sk1.buy("com.tally.photo.credits.50")
            #expect(Set(receipt.transactionIDs) == [credits.transactionID, lifetime.transactionID, jwsOnly.transactionID])
            // The first purchase was delivered before; the restore reports it as a replay.
            _ = try await client.post("/v1/me/purchases", token: user.userToken, body: Self.receiptBody(receipt.base64, credits.transactionID))
            let body = API.body(RestoreRequest(signedTransactions: [jwsOnly.jws], receipt: receipt.base64))
            let response = try await client.post("/v1/me/restore", token: user.userToken, body: body)
            #expect(response.status == .ok)
            let restored = try API.decode(RestoreResponse.self, response)
            // The signed transactions first, then the receipt's purchases in its order; only the lifetime purchase is new by then.
            #expect(restored.results.map(\.transactionID) == [jwsOnly.transactionID] + receipt.transactionIDs)
            #expect(restored.results.map { $0.purchase?.replayed } == [false] + receipt.transactionIDs.map { $0 != lifetime.transactionID })
            #expect(restored.balances.first { $0.currency == "credits" }?.available == 62)
            #expect(restored.entitlements.filter(\.active).map(\.id) == ["zorya.lifetime"])
            // A receipt alone restores too; everything is a replay now.
            let again = try API.decode(
                RestoreResponse.self, try await client.post("/v1/me/restore", token: user.userToken, body: API.body(RestoreRequest(receipt: receipt.base64))))
            #expect(again.results.allSatisfy { $0.purchase?.replayed == true })
            #expect(again.balances == restored.balances)
        }
        try await api.harness.checkInvariants()
    }

    @Test func aRestoreWithABadReceiptDeliversNothing() async throws {
        let api = try await API()
        let sk1 = try StoreKit1Store()
        try await buildApplication(configuration: Self.server(api, receiptVerifier: sk1.receiptVerifier)).test(.router) { client in
            let user = try await client.newUser()
            let (transaction, _) = try await sk1.buy("com.tally.photo.credits.10")
            let body = API.body(RestoreRequest(signedTransactions: [transaction.jws], receipt: "bm90IGEgcmVjZWlwdA=="))
            let response = try await client.post("/v1/me/restore", token: user.userToken, body: body)
            #expect(response.status == .unprocessableContent)
            #expect(Self.verificationCode(response) == "malformed_receipt")
            for refused in ["{}", #"{"receipt":null,"signed_transactions":[]}"#, #"{"receipt":"bm90","signed_transactions":null}"#] {
                let response = try await client.post("/v1/me/restore", token: user.userToken, body: ByteBuffer(string: refused))
                #expect(response.status == .badRequest, "\(refused)")
            }
            let account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(account.balances.first { $0.currency == "credits" }?.available == 2)
        }
    }
}
