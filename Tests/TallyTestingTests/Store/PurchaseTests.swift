import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@Suite struct PurchaseTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func consumablePurchaseIsSignedLikeTheAppStore() async throws {
        let fixture = try StoreFixture()
        let token = UUID()
        let transaction = try await fixture.buy("com.tally.photo.credits.50", SimulatedAppStore.PurchaseOptions(appAccountToken: token))
        let verified = try await fixture.verifier.verifyTransaction(transaction.jws).get()
        let payload = verified.payload
        #expect(payload.transactionID == "2000000100000001")
        #expect(payload.originalTransactionID == payload.transactionID)
        #expect(payload.productID == "com.tally.photo.credits.50")
        #expect(payload.type == .consumable)
        #expect(payload.quantity == 1)
        #expect(payload.price == 7_990)
        #expect(payload.currency == "USD")
        #expect(payload.storefront == "USA")
        #expect(payload.storefrontID == "143441")
        #expect(payload.environment == .sandbox)
        #expect(payload.transactionReason == .purchase)
        #expect(payload.inAppOwnershipType == .purchased)
        #expect(payload.appAccountTokenUUID == token)
        #expect(payload.purchaseDate == StoreFixture.start)
        #expect(payload.signedDate == StoreFixture.start)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func quantityMultipliesThePriceAndIsBounded() async throws {
        let fixture = try StoreFixture()
        let three = try await fixture.buy("com.tally.zorya.report.career", SimulatedAppStore.PurchaseOptions(quantity: 3))
        #expect(three.payload.quantity == 3)
        #expect(three.payload.price == 14_970)
        await #expect(throws: SimulatedAppStoreError(.invalidQuantity, "")) {
            try await fixture.store.purchase("com.tally.zorya.report.career", options: SimulatedAppStore.PurchaseOptions(quantity: 11))
        }
        await #expect(throws: SimulatedAppStoreError(.invalidQuantity, "")) {
            try await fixture.store.purchase("com.tally.zorya.report.career", options: SimulatedAppStore.PurchaseOptions(quantity: 0))
        }
        await #expect(throws: SimulatedAppStoreError(.invalidQuantity, "")) {
            try await fixture.store.purchase("com.tally.zorya.lifetime", options: SimulatedAppStore.PurchaseOptions(quantity: 2))
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func unfinishedUntilFinished() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.buy("com.tally.echo.3hours")
        let second = try await fixture.buy("com.tally.echo.3hours")
        #expect(try await fixture.store.unfinishedTransactions().map(\.transactionID) == [first.transactionID, second.transactionID])
        try await fixture.store.finish(transactionID: first.transactionID)
        #expect(try await fixture.store.unfinishedTransactions().map(\.transactionID) == [second.transactionID])
        // Finished consumables leave the history, as in StoreKit, unless asked for.
        #expect(try await fixture.store.history().map(\.transactionID) == [second.transactionID])
        #expect(try await fixture.store.history(includingFinishedConsumables: true).count == 2)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func cancelledAndFailedPurchasesChargeNothing() async throws {
        let fixture = try StoreFixture()
        #expect(
            try await fixture.store.purchase("com.tally.echo.3hours", options: SimulatedAppStore.PurchaseOptions(outcome: .userCancelled)) == .userCancelled)
        for code in [SimulatedAppStoreError.Code.networkError, .paymentDeclined, .paymentNotAllowed, .productUnavailable] {
            await #expect(throws: SimulatedAppStoreError(code, "")) {
                try await fixture.store.purchase("com.tally.echo.3hours", options: SimulatedAppStore.PurchaseOptions(outcome: .failure(code)))
            }
        }
        await #expect(throws: SimulatedAppStoreError(.productUnavailable, "")) { try await fixture.store.purchase("com.tally.unknown") }
        try await fixture.store.updateSettings { $0.purchaseFailure = .paymentDeclined }
        await #expect(throws: SimulatedAppStoreError(.paymentDeclined, "")) { try await fixture.store.purchase("com.tally.echo.3hours") }
        #expect(try await fixture.store.history(includingFinishedConsumables: true).isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func unverifiedOutcomeHandsOutASignatureThatFails() async throws {
        let fixture = try StoreFixture()
        let transaction = try await fixture.buy("com.tally.echo.3hours", SimulatedAppStore.PurchaseOptions(outcome: .unverified))
        #expect(await fixture.verifier.verifyTransaction(transaction.jws).failure?.code == .badSignature)
        // The purchase happened: the unfinished queue holds it, correctly signed.
        let unfinished = try await fixture.store.unfinishedTransactions()
        #expect(unfinished.count == 1)
        #expect(await fixture.verifier.verifyTransaction(unfinished[0].jws).value != nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func ownedNonConsumableIsNotChargedTwice() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.buy("com.tally.zorya.lifetime")
        let again = try await fixture.buy("com.tally.zorya.lifetime")
        #expect(again.transactionID == first.transactionID)
        #expect(try await fixture.store.currentEntitlements().map(\.productID) == ["com.tally.zorya.lifetime"])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func oneTimePurchasesSendOneTimeCharge() async throws {
        let fixture = try StoreFixture()
        let transaction = try await fixture.buy("com.tally.zorya.report.wellness")
        try await fixture.store.tick()
        let notification = try await fixture.last(.oneTimeCharge)
        #expect(notification.transaction?.payload.transactionID == transaction.transactionID)
        #expect(notification.payload.data?.bundleID == StoreFixture.bundleID)
        #expect(notification.payload.data?.appAppleID == 6_450_000_001)
        #expect(notification.renewalInfo == nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func promotionalOfferMustExist() async throws {
        let fixture = try StoreFixture()
        await #expect(throws: SimulatedAppStoreError(.invalidOffer, "")) {
            try await fixture.store.purchase("com.tally.pro.monthly", options: SimulatedAppStore.PurchaseOptions(promotionalOfferID: "nope"))
        }
    }
}

@Suite struct PendingPurchaseTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func askToBuyApprovedAfterARestartArrivesThroughUpdates() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let stateFile = folder.fileURL("state.json")
        let first = try StoreFixture(stateFile: stateFile)
        try await first.store.updateSettings { $0.askToBuyEnabled = true }
        guard case .pending(let pending) = try await first.store.purchase("com.tally.zorya.report.personality") else {
            Issue.record("expected a pending purchase")
            return
        }
        #expect(pending.reason == .askToBuy)
        #expect(try await first.store.unfinishedTransactions().isEmpty)

        // The store process stops and starts again from its state file.
        let restarted = try StoreFixture(stateFile: stateFile)
        #expect(await restarted.store.pendingPurchases.map(\.id) == [pending.id])
        let updates = await restarted.store.updates()
        let approved = try await restarted.store.approveAskToBuy(pending.id)
        var iterator = updates.makeAsyncIterator()
        let update = await iterator.next()
        #expect(update?.transactionID == approved.transactionID)
        let verified = try await restarted.verifier.verifyTransaction(try #require(update).jws).get()
        #expect(verified.payload.productID == "com.tally.zorya.report.personality")
        #expect(await restarted.store.pendingPurchases.isEmpty)
        #expect(try await restarted.store.unfinishedTransactions().count == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func askToBuyDeclinedMakesNoTransaction() async throws {
        let fixture = try StoreFixture()
        guard
            case .pending(let pending) = try await fixture.store.purchase(
                "com.tally.echo.3hours", options: SimulatedAppStore.PurchaseOptions(outcome: .askToBuy))
        else {
            Issue.record("expected a pending purchase")
            return
        }
        try await fixture.store.declineAskToBuy(pending.id)
        #expect(try await fixture.store.history(includingFinishedConsumables: true).isEmpty)
        await #expect(throws: SimulatedAppStoreError(.notFound, "")) { try await fixture.store.approveAskToBuy(pending.id) }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func interruptedPurchaseCompletesWhenResolved() async throws {
        let fixture = try StoreFixture()
        guard
            case .pending(let pending) = try await fixture.store.purchase(
                "com.tally.echo.3hours", options: SimulatedAppStore.PurchaseOptions(outcome: .interrupted))
        else {
            Issue.record("expected a pending purchase")
            return
        }
        #expect(pending.reason == .interrupted)
        let transaction = try await fixture.store.resolveInterruptedPurchase(pending.id)
        #expect(await fixture.verifier.verifyTransaction(transaction.jws).value?.payload.productID == "com.tally.echo.3hours")
    }
}
