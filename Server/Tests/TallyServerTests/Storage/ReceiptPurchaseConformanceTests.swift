import Foundation
import TallyCore
import TallyServer
import TallyTesting
import TallyVerify
import Testing

/// A simulated store that sells with StoreKit 1 on one device and signs its app receipts with
/// a receipt chain the tests trust explicitly; its JWS come from the harness's authority.
struct StoreKit1Store {
    static let receiptAuthority: TestReceiptAuthority = try! TestReceiptAuthority(
        profile: .init(issuedAt: Harness.start.addingTimeInterval(-86_400)))
    static let device = DeviceIdentifier(uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)

    let store: SimulatedAppStore
    let receiptVerifier: ReceiptVerifier

    init(bundleID: String = "com.tally.example") throws {
        var configuration = SimulatedAppStore.Configuration(catalog: Harness.storeCatalog, bundleID: bundleID, appAppleID: 6_450_000_001)
        configuration.firstTransactionNumber = 2_000_000_700_000_000 + Int64.random(in: 0..<1_000_000) * 100
        store = try SimulatedAppStore(
            configuration: configuration, authority: Harness.authority, time: .manual(start: Harness.start),
            receiptAuthority: Self.receiptAuthority)
        receiptVerifier = ReceiptVerifier(
            .init(bundleID: .equals("com.tally.example"), environments: [.sandbox, .production], rootCertificates: [Self.receiptAuthority.root]),
            now: { Harness.start })
    }

    /// Buys with StoreKit 1 on the device: the transaction (whose JWS the App Store Server API
    /// would give) and the device's receipt after it.
    func buy(
        _ product: String, username: UUID? = nil
    ) async throws -> (transaction: SimulatedAppStore.SignedTransaction, receipt: SimulatedAppStore.SignedReceipt) {
        let payment = SimulatedAppStore.StoreKit1Payment(productID: product, applicationUsername: username?.uuidString, outcome: .success)
        guard case .success(let transaction) = try await store.purchase(payment, on: Self.device) else {
            throw TestFailure("purchase of \(product) did not succeed")
        }
        return (transaction, try await store.appReceipt(for: Self.device))
    }

    /// The receipt verified, and its in-app purchase for `transactionID`.
    func verified(_ receipt: SimulatedAppStore.SignedReceipt, _ transactionID: String) async throws -> (VerifiedReceipt, InAppPurchaseReceipt) {
        let verified = try await receiptVerifier.verify(receipt.bytes).get()
        let purchase = try #require(verified.payload.inAppPurchases.first { $0.transactionID == transactionID })
        return (verified, purchase)
    }
}

/// Purchases delivered from app receipts, on every backend: granted once under the same
/// transaction id as the JWS path, whichever form arrives first.
@Suite struct ReceiptPurchaseConformanceTests {
    @Test(arguments: Backend.available)
    func aReceiptPurchaseGrantsOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let sk1 = try StoreKit1Store()
        let user = try await harness.user()
        let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.50")
        let (verified, purchase) = try await sk1.verified(receipt, transaction.transactionID)
        let first = try await harness.storage.purchases.deliver(purchase, from: verified, receiptText: receipt.base64, presenter: user, orderID: nil)
        #expect(first.transactionID == transaction.transactionID)
        #expect(first.granted == [Amount(currency: "credits", amount: 50)])
        #expect(!first.replayed)
        let again = try await harness.storage.purchases.deliver(purchase, from: verified, receiptText: receipt.base64, presenter: user, orderID: nil)
        #expect(again.replayed)
        #expect(again.granted == first.granted)
        #expect(try await harness.balance(user, "credits").available == 52)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aReceiptThenItsJWSGrantOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let sk1 = try StoreKit1Store()
        let user = try await harness.user()
        let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.10", username: user.appAccountToken)
        let (verified, purchase) = try await sk1.verified(receipt, transaction.transactionID)
        let byReceipt = try await harness.storage.purchases.deliver(purchase, from: verified, receiptText: receipt.base64, presenter: user, orderID: nil)
        #expect(!byReceipt.replayed)
        let byJWS = try await harness.storage.purchases.deliver(
            try await harness.verified(transaction.jws), jws: transaction.jws, presenter: user, orderID: nil)
        #expect(byJWS.replayed)
        #expect(byJWS.transactionID == byReceipt.transactionID)
        #expect(try await harness.balance(user, "credits").available == 12)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aJWSThenTheReceiptIsAReplay(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let sk1 = try StoreKit1Store()
        let user = try await harness.user()
        let (transaction, receipt) = try await sk1.buy("com.tally.zorya.report.career", username: user.appAccountToken)
        let byJWS = try await harness.storage.purchases.deliver(
            try await harness.verified(transaction.jws), jws: transaction.jws, presenter: user, orderID: nil)
        #expect(!byJWS.replayed)
        let (verified, purchase) = try await sk1.verified(receipt, transaction.transactionID)
        let byReceipt = try await harness.storage.purchases.deliver(purchase, from: verified, receiptText: receipt.base64, presenter: user, orderID: nil)
        #expect(byReceipt.replayed)
        #expect(byReceipt.granted == byJWS.granted)
        #expect(try await harness.balance(user, "report.career").available == 1)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aReceiptPurchaseBelongsToItsFirstPresenter(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let sk1 = try StoreKit1Store()
        let owner = try await harness.user()
        let other = try await harness.user()
        let (transaction, receipt) = try await sk1.buy("com.tally.photo.credits.10")
        let (verified, purchase) = try await sk1.verified(receipt, transaction.transactionID)
        _ = try await harness.storage.purchases.deliver(purchase, from: verified, receiptText: receipt.base64, presenter: owner, orderID: nil)
        await #expect(throws: StorageError.self) {
            try await harness.storage.purchases.deliver(purchase, from: verified, receiptText: receipt.base64, presenter: other, orderID: nil)
        }
        #expect(try await harness.balance(other, "credits").available == 2)
        #expect(try await harness.balance(owner, "credits").available == 12)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aCancelledReceiptPurchaseGrantsNothing(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let sk1 = try StoreKit1Store()
        let user = try await harness.user()
        let (transaction, _) = try await sk1.buy("com.tally.zorya.lifetime")
        try await sk1.store.advance(by: .seconds(60))
        try await sk1.store.refund(transactionID: transaction.transactionID)
        let receipt = try await sk1.store.refreshAppReceipt(for: StoreKit1Store.device)
        let (verified, purchase) = try await sk1.verified(receipt, transaction.transactionID)
        #expect(purchase.cancellationDate != nil)
        let response = try await harness.storage.purchases.deliver(purchase, from: verified, receiptText: receipt.base64, presenter: user, orderID: nil)
        #expect(response.granted.isEmpty)
        #expect(!response.entitlements.contains { $0.active })
        try await harness.checkInvariants()
    }
}
