import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// StoreKit 1 on the simulated store: payments with `applicationUsername`, and per-device app
/// receipts that `ReceiptVerifier` accepts when it trusts the store's receipt root.
@Suite struct StoreKit1ReceiptTests {
    static let receiptAuthority: TestReceiptAuthority = try! TestReceiptAuthority(
        profile: .init(issuedAt: StoreFixture.start.addingTimeInterval(-86_400)))
    static let device = DeviceIdentifier(uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
    static let otherDevice = DeviceIdentifier(uuid: UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!)

    /// A simulated store selling with StoreKit 1, and a verifier that trusts its receipt root; one per test.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    struct Harness {
        let store: SimulatedAppStore
        let verifier: ReceiptVerifier

        init(stateFile: URL? = nil) throws {
            var configuration = SimulatedAppStore.Configuration(
                catalog: StoreFixture.catalog, bundleID: StoreFixture.bundleID, appAppleID: 6_450_000_001)
            configuration.stateFile = stateFile
            configuration.firstTransactionNumber = 2_000_000_300_000_001
            store = try SimulatedAppStore(
                configuration: configuration, authority: StoreFixture.authority, time: .manual(start: StoreFixture.start),
                transport: NotificationInbox(), receiptAuthority: StoreKit1ReceiptTests.receiptAuthority)
            verifier = ReceiptVerifier(
                .init(bundleID: .equals(StoreFixture.bundleID), environments: [.sandbox], rootCertificates: [StoreKit1ReceiptTests.receiptAuthority.root]),
                now: { StoreFixture.start })
        }

        func buy(
            _ product: String, on device: DeviceIdentifier = StoreKit1ReceiptTests.device, username: String? = nil
        ) async throws -> SimulatedAppStore.SignedTransaction {
            let payment = SimulatedAppStore.StoreKit1Payment(productID: product, applicationUsername: username, outcome: .success)
            guard case .success(let transaction) = try await store.purchase(payment, on: device) else {
                throw SimulatedAppStoreError(.invalidState, "purchase of \(product) did not succeed")
            }
            return transaction
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theReceiptVerifiesAndListsThePurchase() async throws {
        let harness = try Harness()
        let transaction = try await harness.buy("com.tally.photo.credits.50")
        let receipt = try await harness.store.appReceipt(for: Self.device)
        let verified = try await harness.verifier.verify(receipt.bytes, deviceIdentifier: Self.device).get()
        #expect(verified.payload.bundleID == StoreFixture.bundleID)
        #expect(verified.payload.environment == .sandbox)
        #expect(verified.payload.rawEnvironment == "ProductionSandbox")
        #expect(verified.payload.receiptCreationDate == StoreFixture.start)
        let purchase = try #require(verified.payload.inAppPurchases.first)
        #expect(verified.payload.inAppPurchases.count == 1)
        #expect(purchase.transactionID == transaction.transactionID)
        #expect(purchase.productID == "com.tally.photo.credits.50")
        #expect(purchase.productType == .consumable)
        #expect(purchase.quantity == 1)
        // What the store says it wrote is what a verifier reads.
        #expect(verified.payload == receipt.payload)
        // The base64 form, as apps send it, verifies too.
        #expect(try await harness.verifier.verify(base64: receipt.base64).get().payload == receipt.payload)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theDeviceHashBindsTheReceiptToItsDevice() async throws {
        let harness = try Harness()
        _ = try await harness.buy("com.tally.zorya.lifetime")
        let receipt = try await harness.store.appReceipt(for: Self.device)
        guard case .invalid(let failure) = await harness.verifier.verify(receipt.bytes, deviceIdentifier: Self.otherDevice) else {
            Issue.record("a receipt verified for a device it was not issued to")
            return
        }
        #expect(failure.code == .deviceHashMismatch)
        // The other device has a receipt of its own, with its own opaque value, listing the same purchases.
        let other = try await harness.store.appReceipt(for: Self.otherDevice)
        #expect(try await harness.verifier.verify(other.bytes, deviceIdentifier: Self.otherDevice).get().payload.inAppPurchases.count == 1)
        #expect(other.payload.opaqueValue != receipt.payload.opaqueValue)
        guard case .invalid(let swapped) = await harness.verifier.verify(other.bytes, deviceIdentifier: Self.device) else {
            Issue.record("the other device's receipt verified for the first device")
            return
        }
        #expect(swapped.code == .deviceHashMismatch)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aReceiptIsRejectedWithoutItsRootTrusted() async throws {
        let harness = try Harness()
        _ = try await harness.buy("com.tally.photo.credits.10")
        let receipt = try await harness.store.appReceipt(for: Self.device)
        let appleOnly = ReceiptVerifier(.init(bundleID: .equals(StoreFixture.bundleID), environments: [.sandbox]), now: { StoreFixture.start })
        guard case .invalid(let failure) = await appleOnly.verify(receipt.bytes) else {
            Issue.record("a simulated receipt verified against Apple's root")
            return
        }
        #expect(failure.code == .untrustedChain)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aFinishedConsumableLeavesTheReceiptAtTheNextRefresh() async throws {
        let harness = try Harness()
        let credits = try await harness.buy("com.tally.photo.credits.10")
        let lifetime = try await harness.buy("com.tally.zorya.lifetime")
        #expect(Set(try await harness.store.appReceipt(for: Self.device).transactionIDs) == [credits.transactionID, lifetime.transactionID])
        try await harness.store.finish(transactionID: credits.transactionID)
        try await harness.store.finish(transactionID: lifetime.transactionID)
        // Finishing does not rewrite the receipt a device holds...
        #expect(Set(try await harness.store.appReceipt(for: Self.device).transactionIDs) == [credits.transactionID, lifetime.transactionID])
        // ...the next refresh leaves the finished consumable out and keeps the non-consumable.
        let refreshed = try await harness.store.refreshAppReceipt(for: Self.device)
        #expect(refreshed.transactionIDs == [lifetime.transactionID])
        #expect(try await harness.verifier.verify(refreshed.bytes, deviceIdentifier: Self.device).get().payload.inAppPurchases.count == 1)
        // An unfinished consumable stays.
        let unfinished = try await harness.buy("com.tally.photo.credits.50")
        #expect(Set(try await harness.store.appReceipt(for: Self.device).transactionIDs) == [lifetime.transactionID, unfinished.transactionID])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func eachPurchaseIssuesTheReceiptAgain() async throws {
        let harness = try Harness()
        let first = try await harness.buy("com.tally.photo.credits.10")
        let before = try await harness.store.appReceipt(for: Self.device)
        try await harness.store.advance(by: .seconds(3600))
        let second = try await harness.buy("com.tally.photo.credits.50")
        let after = try await harness.store.appReceipt(for: Self.device)
        #expect(before.transactionIDs == [first.transactionID])
        #expect(Set(after.transactionIDs) == [first.transactionID, second.transactionID])
        #expect(after.payload.receiptCreationDate == StoreFixture.start.addingTimeInterval(3600))
        // The device's opaque value does not change between issues.
        #expect(after.payload.opaqueValue == before.payload.opaqueValue)
        // What the store says it wrote is what a verifier reads, in-app purchases in the same order.
        #expect(try await harness.verifier.verify(after.bytes, deviceIdentifier: Self.device).get().payload == after.payload)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func onlyAUUIDApplicationUsernameBecomesTheAppAccountToken() async throws {
        let harness = try Harness()
        let uuid = "5C0B6F2E-8D5E-4C55-9A38-2F1C0D9E7B41"
        let kept = try await harness.buy("com.tally.photo.credits.10", username: uuid)
        #expect(kept.payload.appAccountToken == uuid.lowercased())
        let dropped = try await harness.buy("com.tally.photo.credits.10", username: "user-42@example.com")
        #expect(dropped.payload.appAccountToken == nil)
        // The JWS the App Store Server API gives for the same transaction says the same.
        let signed = try await harness.store.transaction(kept.transactionID)
        let verified = try await StoreFixture().verifier.verifyTransaction(signed.jws).get()
        #expect(verified.payload.appAccountToken == uuid.lowercased())
        // A receipt never carries it: an in-app purchase has no such field, and the payload matches the verified bytes.
        let receipt = try await harness.store.appReceipt(for: Self.device)
        #expect(try await harness.verifier.verify(receipt.bytes).get().payload == receipt.payload)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anAskToBuyPaymentUpdatesTheReceiptWhenApproved() async throws {
        let harness = try Harness()
        let payment = SimulatedAppStore.StoreKit1Payment(productID: "com.tally.zorya.lifetime", outcome: .askToBuy)
        guard case .pending(let pending) = try await harness.store.purchase(payment, on: Self.device) else {
            Issue.record("an Ask to Buy payment did not wait")
            return
        }
        #expect(try await harness.store.appReceipt(for: Self.device).transactionIDs.isEmpty)
        let approved = try await harness.store.approveAskToBuy(pending.id)
        #expect(try await harness.store.appReceipt(for: Self.device).transactionIDs == [approved.transactionID])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aRefundShowsAsACancellationDateAfterTheNextRefresh() async throws {
        let harness = try Harness()
        let lifetime = try await harness.buy("com.tally.zorya.lifetime")
        try await harness.store.advance(by: .seconds(600))
        _ = try await harness.store.refund(transactionID: lifetime.transactionID)
        let receipt = try await harness.store.refreshAppReceipt(for: Self.device)
        let purchase = try #require(try await harness.verifier.verify(receipt.bytes).get().payload.inAppPurchases.first)
        #expect(purchase.transactionID == lifetime.transactionID)
        #expect(purchase.cancellationDate == StoreFixture.start.addingTimeInterval(600))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func receiptsSurviveARestartFromTheStateFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.fileURL("state.json")
        let first = try Harness(stateFile: file)
        let bought = try await first.buy("com.tally.photo.credits.10")
        let before = try await first.store.appReceipt(for: Self.device)
        let reopened = try Harness(stateFile: file)
        let after = try await reopened.store.appReceipt(for: Self.device)
        #expect(after.bytes == before.bytes)
        #expect(after.transactionIDs == [bought.transactionID])
    }
}
