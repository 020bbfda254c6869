import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// The purchase journal (`PurchaseJournal`): a transaction is journaled once however many ways
/// it arrives, and one that does not verify stays journaled as rejected, unfinished.
@Suite(.timeLimit(.minutes(2))) struct PurchaseJournalTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aTransactionThatDoesNotVerifyIsNotCreditedNorFinished() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        await device.store.nextPurchase(.unverified)
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .verificationFailed)
        let transactionID = try #require(try await device.appStore.unfinishedTransactions().first?.transactionID)
        #expect(error?.reason.hasPrefix("transaction \(transactionID): ") == true, "support can find the payment: \(String(describing: error))")
        #expect(error?.presentation(in: .english).action == .tryAgain)
        #expect(try await manager.available("report.career") == 0)
        #expect(try await device.appStore.unfinishedTransactions().count == 1)
        #expect(try await manager.journal.unfinished().first?.state == .rejected)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theSameTransactionFromThePurchaseCallAndTheUpdatesStreamAtOnceCreditsOnce() async throws {
        let device = try await Device()
        let gate = Gate()
        let (manager, _) = try await device.launchOnDevice { $0.checkpoint = { step, _ in if step == .journaled { await gate.wait() } } }
        let purchase = Task { try await manager.buy(Kit.report("career")) }
        await gate.arrived()
        let transactionID = try #require(try await device.appStore.unfinishedTransactions().first?.transactionID)
        try await device.store.redeliver(transactionID: transactionID)
        await gate.open()
        let receipt = try await purchase.value
        #expect(receipt.transactionID == transactionID)
        // Let the updates stream deliver what it got, then look.
        await manager.start()
        #expect(try await manager.available("report.career") == 1)
        #expect(try await manager.journal.all().count == 1)
    }
}
