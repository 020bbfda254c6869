import Foundation
import TallyCore
import TallyKitTesting
import TallySQL
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@testable import TallyKit

/// The astrology app on a phone below iOS 15: StoreKit 1, no backend. Each purchase is proved
/// by the app receipt, verified on the device against the receipt chain and this phone's
/// identifier, and credited exactly once, whichever way it arrives.
@Suite(.timeLimit(.minutes(2))) struct StoreKit1OnDeviceTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aPurchaseIsProvedByTheReceiptAndCreditedOnce() async throws {
        let device = try await Device(storeKit1: true)
        let (manager, _) = try await device.launchOnDevice()
        let receipt = try await manager.buy(Kit.report("career"), quantity: 2)
        #expect(receipt.granted == [Amount(currency: "report.career", amount: 2)])
        #expect(await device.appStore.isFinished(transactionID: receipt.transactionID))

        // The journal and the ledger keep the receipt as the purchase's proof.
        let kinds = try await device.database().read { executor in
            [
                try await executor.query("SELECT evidence_kind FROM journal", []).first?.optionalText(SQLColumn("evidence_kind")),
                try await executor.query("SELECT evidence_kind FROM ledger_purchases", []).first?.optionalText(SQLColumn("evidence_kind")),
            ]
        }
        #expect(kinds == ["receipt", "receipt"])

        // StoreKit 1 hands the same transaction out again: nothing more is credited.
        try await device.store.redeliver(transactionID: receipt.transactionID)
        await manager.stop()
        let (again, _) = try await device.launchOnDevice()
        #expect(try await again.available("report.career") == 2)
        #expect(try await again.journal.all().count == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aReceiptIssuedToAnotherDeviceIsNotCreditedNorFinished() async throws {
        let device = try await Device(storeKit1: true)
        let database = try await device.database()
        // The ledger expects another phone's identifier: the receipt's hash does not match.
        let ledger = try await device.onDeviceLedger(database, receiptDevice: DeviceIdentifier(uuid: UUID()))
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: [Kit.report("career")])
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .verificationFailed)
        #expect(error?.reason.contains("device_hash_mismatch") == true, "\(String(describing: error))")
        #expect(try await manager.available("report.career") == 0)
        #expect(try await device.appStore.unfinishedTransactions().count == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aLedgerWithoutAReceiptVerifierRefusesReceipts() async throws {
        let device = try await Device(storeKit1: true)
        let database = try await device.database()
        let time = device.time
        let ledger = try await OnDeviceLedger(
            database: database, catalog: Kit.onDeviceCatalog, verifier: Kit.verifier { time.now }, now: { time.now })
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: [Kit.report("career")])
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .verificationFailed)
        #expect(try await manager.available("report.career") == 0)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theLifetimeUnlockComesBackFromTheReceiptAfterAReinstall() async throws {
        let device = try await Device(storeKit1: true)
        let (manager, _) = try await device.launchOnDevice()
        _ = try await manager.buy("com.tally.zorya.lifetime")
        #expect(try await manager.account(.fetchCurrent).isActive("zorya.lifetime"))
        await manager.stop()

        device.reinstall()
        let (again, _) = try await device.launchOnDevice()
        _ = try await again.restore()
        #expect(try await again.account(.fetchCurrent).isActive("zorya.lifetime"))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aTransactionTheReceiptDoesNotListAsksForNoSignInAtLaunchButComesWithARestore() async throws {
        let device = try await Device(storeKit1: true)
        // The device's receipt was issued before the purchase, which is unfinished in its queue.
        _ = try await device.appStore.appReceipt(for: device.identifier)
        guard case .success = try await device.appStore.purchase(Kit.report("career"), options: .init()) else {
            throw KitTestFailure("expected the purchase to succeed")
        }

        let (manager, _) = try await device.launchOnDevice()
        await manager.waitUntilCaughtUp()
        // No Apple ID sign-in appeared at launch: nothing refreshed the receipt, so nothing was credited yet.
        #expect(await device.store.receiptRefreshes == 0)
        #expect(try await manager.available("report.career") == 0)

        // The customer taps Restore: one sign-in, and the purchase is credited.
        _ = try await manager.restore()
        #expect(await device.store.receiptRefreshes == 1)
        #expect(try await manager.available("report.career") == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func askToBuyApprovedLaterArrivesWithAnUpdatedReceipt() async throws {
        let device = try await Device(storeKit1: true) { $0.askToBuyEnabled = true }
        let (manager, _) = try await device.launchOnDevice()
        #expect(try await manager.purchase(Kit.report("wellness")) == .pending)
        await manager.stop()

        let pending = try #require(await device.appStore.pendingPurchases.first)
        let approved = try await device.appStore.approveAskToBuy(pending.id)
        let (again, _) = try await device.launchOnDevice()
        #expect(try await again.available("report.wellness") == 1)
        #expect(await device.appStore.isFinished(transactionID: approved.transactionID))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aPurchaseReportedByReceiptAndLaterByItsJWSIsCreditedOnce() async throws {
        // Bought and credited on iOS 14, by receipt.
        let device = try await Device(storeKit1: true)
        let (manager, ledger) = try await device.launchOnDevice()
        let first = try await manager.buy(Kit.report("career"))

        // The person updates to iOS 15: StoreKit 2 hands out the same transaction as a JWS, bound to the phone.
        let signed = try await device.appStore.transaction(
            try await device.appStore.transaction(first.transactionID), boundTo: device.deviceVerificationID)
        let second = try await ledger.deliver(try StoreTransaction(jws: signed.jws), ticket: nil)
        #expect(second.replayed)
        #expect(second.granted == first.granted)
        #expect(try await manager.available("report.career") == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aReceiptThatCannotBeReadOrDoesNotListTheTransactionIsRefused() async throws {
        #expect(throws: TallyError.self) { try StoreTransaction(receipt: "not base64 at all", transactionID: "1") }
        #expect(throws: TallyError.self) { try StoreTransaction(receipt: Data("hello".utf8).base64EncodedString(), transactionID: "1") }
        #expect(throws: TallyError.self) { try StoreTransaction.all(inReceipt: "") }

        // A real receipt, asked for a transaction it does not list.
        let device = try await Device(storeKit1: true)
        let (manager, _) = try await device.launchOnDevice()
        let bought = try await manager.buy(Kit.report("career"))
        let receipt = try await device.appStore.appReceipt(for: device.identifier).base64
        #expect(try StoreTransaction(receipt: receipt, transactionID: bought.transactionID).productID == Kit.report("career"))
        let error = #expect(throws: TallyError.self) { try StoreTransaction(receipt: receipt, transactionID: bought.transactionID + "9") }
        #expect(error?.code == .verificationFailed)
        #expect(error?.reason.contains("does not list") == true, "\(String(describing: error))")
    }
}
