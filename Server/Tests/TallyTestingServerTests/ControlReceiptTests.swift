import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyTestingServer
import TallyVerify
import Testing

/// StoreKit 1 over the control API: a purchase with `"storekit": 1` on a device, the device's
/// app receipt, its refresh, and the receipt root to trust.
@Suite struct ControlReceiptTests {
    static let receiptAuthority: TestReceiptAuthority = try! TestReceiptAuthority(
        profile: .init(issuedAt: StoreFixture.start.addingTimeInterval(-86_400)))
    static let device = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

    let store: SimulatedAppStore
    let app: Application<RouterResponder<BasicRequestContext>>
    let verifier = ReceiptVerifier(
        .init(bundleID: .equals(StoreFixture.bundleID), environments: [.sandbox], rootCertificates: [Self.receiptAuthority.root]),
        now: { StoreFixture.start })

    init() throws {
        let configuration = SimulatedAppStore.Configuration(catalog: StoreFixture.catalog, bundleID: StoreFixture.bundleID)
        store = try SimulatedAppStore(
            configuration: configuration, authority: StoreFixture.authority, time: .manual(start: StoreFixture.start),
            transport: NotificationInbox(), receiptAuthority: Self.receiptAuthority)
        let credentials = ServerAPICredentials(issuerID: "issuer", keys: ["KEY1": P256.Signing.PrivateKey().publicKey])
        app = Application(router: AppStoreSimulatorRouter.build(store: store, credentials: credentials))
    }

    static func object(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any] ?? [:]
    }

    static func post(_ client: some TestClientProtocol, _ uri: String, _ body: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, body: ByteBuffer(string: body))
    }

    @Test func aStoreKit1PurchaseAnswersWithTheDevicesReceipt() async throws {
        try await app.test(.router) { client in
            let body =
                #"{"product_id":"com.tally.photo.credits.10","storekit":1,"device_id":"\#(Self.device)","application_username":"5c0b6f2e-8d5e-4c55-9a38-2f1c0d9e7b41"}"#
            let response = try await Self.post(client, "/control/purchases", body)
            #expect(response.status == .ok)
            let answer = Self.object(response.body)
            let transactionID = try #require(answer["transaction_id"] as? String)
            let receipt = try #require(answer["receipt"] as? String)
            let device = try #require(DeviceIdentifier(hex: Self.device))
            let verified = try await verifier.verify(base64: receipt, deviceIdentifier: device).get()
            #expect(verified.payload.inAppPurchases.map(\.transactionID) == [transactionID])
            // The JWS of the same transaction carries the UUID as its app account token.
            let jws = try #require(answer["signed_transaction"] as? String)
            let payload = try await StoreFixture().verifier.verifyTransaction(jws).get().payload
            #expect(payload.appAccountToken == "5c0b6f2e-8d5e-4c55-9a38-2f1c0d9e7b41")

            let read = try await client.execute(uri: "/control/receipt?device_id=\(Self.device)", method: .get)
            #expect(read.status == .ok)
            let held = Self.object(read.body)
            #expect(held["receipt"] as? String == receipt)
            #expect(held["transaction_ids"] as? [String] == [transactionID])
            #expect(held["device_id"] as? String == device.description)
        }
    }

    @Test func refreshLeavesOutAFinishedConsumable() async throws {
        try await app.test(.router) { client in
            let bought = Self.object(
                try await Self.post(client, "/control/purchases", #"{"product_id":"com.tally.photo.credits.10","storekit":1,"device_id":"\#(Self.device)"}"#)
                    .body)
            let transactionID = try #require(bought["transaction_id"] as? String)
            #expect(try await client.execute(uri: "/control/transactions/\(transactionID)/finish", method: .post).status == .ok)
            let held = Self.object(try await client.execute(uri: "/control/receipt?device_id=\(Self.device)", method: .get).body)
            #expect(held["transaction_ids"] as? [String] == [transactionID])
            let refreshed = try await Self.post(client, "/control/receipt/refresh", #"{"device_id":"\#(Self.device)"}"#)
            #expect(refreshed.status == .ok)
            #expect(Self.object(refreshed.body)["transaction_ids"] as? [String] == [])
        }
    }

    @Test func theReceiptRootIsServedAsPEM() async throws {
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/control/receipt-root.pem", method: .get)
            #expect(response.status == .ok)
            let pem = String(buffer: response.body)
            #expect(pem == (try Self.receiptAuthority.root.serializeAsPEM().pemString + "\n"))
        }
    }

    @Test(arguments: [
        #"{"product_id":"com.tally.photo.credits.10","storekit":1}"#,
        #"{"product_id":"com.tally.photo.credits.10","storekit":1,"device_id":"not-hex"}"#,
        #"{"product_id":"com.tally.photo.credits.10","storekit":3,"device_id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#,
        #"{"product_id":"com.tally.photo.credits.10","device_id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#,
        #"{"product_id":"com.tally.photo.credits.10","storekit":1,"device_id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","app_account_token":"5c0b6f2e-8d5e-4c55-9a38-2f1c0d9e7b41"}"#,
    ])
    func badStoreKit1PurchasesAreRefused(body: String) async throws {
        try await app.test(.router) { client in
            let response = try await Self.post(client, "/control/purchases", body)
            #expect(response.status == .badRequest)
            #expect((Self.object(response.body)["error"] as? [String: Any])?["code"] as? String == "invalid_body")
        }
        #expect(try await store.history().isEmpty)
    }

    @Test func aReceiptNeedsADeviceID() async throws {
        try await app.test(.router) { client in
            let missing = try await client.execute(uri: "/control/receipt", method: .get)
            let notHex = try await client.execute(uri: "/control/receipt?device_id=zz", method: .get)
            let refreshWithout = try await Self.post(client, "/control/receipt/refresh", "{}")
            #expect([missing.status, notHex.status, refreshWithout.status] == [.badRequest, .badRequest, .badRequest])
        }
    }
}
