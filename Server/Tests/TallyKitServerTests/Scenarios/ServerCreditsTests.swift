import Foundation
import TallyCore
import TallyKitTesting
import TallyServer
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// Credits kept by a Tally server, running in this process on loopback, reached over HTTP by
/// `ServerDelivery`: an AI photo app's credit packs and a recording app's hours.
@Suite(.timeLimit(.minutes(2))) struct ServerCreditsTests {
    static let photoProducts = ["com.tally.photo.credits.10", "com.tally.photo.credits.50", "com.tally.photo.credits.100"]

    /// A device signed up with the server, its manager started.
    static func signedUp(
        _ device: Device, _ server: LiveServer, transport: FlakyTransport = FlakyTransport(), products: [String] = photoProducts,
        _ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }
    ) async throws -> (PurchaseManager, ServerDelivery) {
        let credentials = try await ServerDelivery.register(baseURL: server.baseURL, transport: transport)
        let delivery = ServerDelivery(baseURL: server.baseURL, credentials: credentials, transport: transport)
        let manager = try await device.launch(delivery: delivery, database: try await device.database(), productIDs: products) {
            $0.scope = credentials.userID
            configure(&$0)
        }
        return (manager, delivery)
    }

    // MARK: An AI photo app with server credits

    @Test func twoFreeCreditsOnSignUpThenAPackOfFifty() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, delivery) = try await Self.signedUp(device, server)
            #expect(try await manager.available("credits") == 2)
            let receipt = try await manager.buy("com.tally.photo.credits.50")
            #expect(receipt.granted == [Amount(currency: "credits", amount: 50)])
            #expect(receipt.balances.first { $0.currency == "credits" }?.available == 52)
            #expect(!receipt.replayed)
            // The order made before payment was fulfilled by this transaction.
            let intent = try #require(try await manager.journal.intents().first)
            let order = try await delivery.order(try #require(intent.ticket.orderID))
            #expect(order.status == .fulfilled)
            #expect(order.transactionID == receipt.transactionID)
            #expect(await device.appStore.isFinished(transactionID: receipt.transactionID))
        }
    }

    @Test func aStoreKit1PurchaseIsCreditedFromTheReceiptAndItsJWSLaterIsAReplay() async throws {
        let device = try await Device(storeKit1: true)
        let authority = try await device.appStore.receiptAuthority()
        try await LiveServer.run(time: device.time, receiptAuthority: authority) { server in
            let (manager, delivery) = try await Self.signedUp(device, server)
            let first = try await manager.buy("com.tally.photo.credits.10")
            #expect(first.granted == [Amount(currency: "credits", amount: 10)])
            #expect(!first.replayed)
            #expect(await device.appStore.isFinished(transactionID: first.transactionID))
            let journaled = try #require(try await manager.journal.all().first)
            #expect(journaled.transaction.evidence.kind == "receipt")

            // The person updates to iOS 15: StoreKit 2 hands out the same transaction as a JWS.
            let signed = try await device.appStore.transaction(first.transactionID)
            let second = try await delivery.deliver(try StoreTransaction(jws: signed.jws), ticket: nil)
            #expect(second.replayed)
            #expect(try await manager.available("credits") == 12)
        }
    }

    @Test func insufficientCreditsIsATypedErrorAPaywallCanActOn() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server)
            let error = await #expect(throws: TallyError.self) {
                try await manager.spend("credits", amount: 3, reference: "image-1", idempotencyKey: "image-1")
            }
            #expect(error?.code == .insufficientCredits)
            #expect(error?.available == 2)
            #expect(error?.currency == "credits")
            let presentation = try #require(error?.presentation(in: .ukrainian))
            #expect(presentation.title == "Недостатньо кредитів")
            #expect(presentation.message.hasSuffix("У вас 2 кредити."))
            #expect(try await manager.available("credits") == 2)
        }
    }

    @Test func aSpendRetriedWithItsKeySpendsOnce() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.signedUp(device, server, transport: transport)
            // The first answer is lost after the server spent; the retry carries the same key.
            transport.fail(.answerLost)
            let spending = Task { try await manager.spend("credits", amount: 1, reference: "image-7", idempotencyKey: "spend-image-7") }
            await device.clock.waitForSleepers(1)
            device.clock.advance(by: .seconds(60))
            let spent = try await spending.value
            #expect(spent.replayed)
            #expect(try await manager.available("credits") == 1)
        }
    }

    @Test func aSpendTheAppRetriesWithItsKeyAfterAnErrorSpendsOnce() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.signedUp(device, server, transport: transport) { $0.attemptsDuringPurchase = 1 }
            // The server spends, the answer is lost, the call fails; the app tries again with the same key.
            transport.fail(.answerLost)
            let error = await #expect(throws: TallyError.self) {
                try await manager.spend("credits", amount: 1, reference: "image-9", idempotencyKey: "image-9")
            }
            #expect(error?.isTransient == true)
            let retried = try await manager.spend("credits", amount: 1, reference: "image-9", idempotencyKey: "image-9")
            #expect(retried.replayed)
            #expect(try await manager.available("credits") == 1)
        }
    }

    @Test func theCreditHistoryListsWhatCameInAndWhatWasUsedForWhat() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server)
            let receipt = try await manager.buy("com.tally.photo.credits.10")
            device.time.advance(by: 60)
            _ = try await manager.spend("credits", amount: 3, reference: "image-1", idempotencyKey: "image-1")
            _ = try await manager.consume("credits", for: "image-2") { () }
            let history = try await manager.creditHistory(currency: "credits")
            // The sign-up grant, then the pack.
            #expect(history.acquisitions.map(\.amount) == [2, 10])
            #expect(history.acquisitions.map(\.transactionID) == [nil, receipt.transactionID])
            #expect(history.acquisitions.last?.acquiredAt == Kit.start)
            #expect(history.consumptions.map(\.amount) == [3, 1])
            #expect(history.consumptions.first?.reference == "image-1")
            #expect(history.consumptions.first?.date == Kit.start.addingTimeInterval(60))
            // What the server cannot say: which purchase paid, how much of each is left, and the
            // reference of what a reservation used.
            #expect(history.consumptions.allSatisfy { $0.sources.isEmpty })
            #expect(history.acquisitions.allSatisfy { $0.remaining == nil })
            #expect(history.consumptions.last?.reference == "reservation")
        }
    }

    // MARK: A voice recorder selling seconds

    @Test func topUpThreeHoursOfRecording() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server, products: ["com.tally.echo.3hours"])
            let receipt = try await manager.buy("com.tally.echo.3hours")
            #expect(receipt.granted == [Amount(currency: "seconds", amount: 10_800)])
            #expect(try await manager.available("seconds") == 10_800)
        }
    }

    @Test func aBookingUsesTheMonthlyAllowanceBeforeTheTopUpAndReturnsTheUnusedPart() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server, products: ["com.tally.echo.3hours", "com.tally.pro.monthly"])
            _ = try await manager.buy("com.tally.pro.monthly")
            _ = try await manager.buy("com.tally.echo.3hours")
            let before = try await manager.account(.fetchCurrent).balance("seconds")
            #expect(before.allowance?.granted == 3600)
            #expect(before.available == 10_800)

            let reservation = try await manager.reserve("seconds", amount: 4000, ttlSeconds: 600, reference: "recording-1", idempotencyKey: "recording-1")
            #expect(reservation.fromAllowance == 3600)
            #expect(reservation.fromBalance == 400)
            let committed = try #require(try await manager.commit(reservation, used: 3700))
            #expect(committed.status == .committed)
            let after = try await manager.account(.fetchCurrent).balance("seconds")
            #expect(after.allowance?.used == 3600)
            #expect(after.available == 10_800 - 100)
            #expect(after.held == 0)
        }
    }

    @Test func anExpiredReservationReturnsEverything() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server, products: ["com.tally.echo.3hours"])
            _ = try await manager.buy("com.tally.echo.3hours")
            let reservation = try await manager.reserve("seconds", amount: 600, ttlSeconds: 60, idempotencyKey: "recording-2")
            #expect(try await manager.available("seconds") == 10_200)
            device.time.advance(by: 61)
            // The server's sweeper (once a second in `tally serve`) returns it.
            _ = try await server.storage.spending.expireReservations()
            #expect(try await manager.available("seconds") == 10_800)
            let error = await #expect(throws: TallyError.self) { try await manager.commit(reservation, used: 10) }
            #expect(error?.code == .reservationClosed)
        }
    }

    @Test func consumeHoldsWhileRecordingAndChargesOnlyOnSuccess() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server, products: ["com.tally.echo.3hours"])
            _ = try await manager.buy("com.tally.echo.3hours")
            struct RecordingFailed: Error {}
            await #expect(throws: RecordingFailed.self) {
                try await manager.consume("seconds", amount: 300, for: "recording-2") { throw RecordingFailed() }
            }
            #expect(try await manager.available("seconds") == 10_800)
            try await manager.consume("seconds", amount: 300, for: "recording-3") { () }
            #expect(try await manager.available("seconds") == 10_500)
        }
    }

    @Test func aHoldWhoseAnswerWasLostIsReleasedAtTheNextStart() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, delivery) = try await Self.signedUp(
                device, server, transport: transport, products: ["com.tally.echo.3hours"]
            ) { $0.attemptsDuringPurchase = 1 }
            _ = try await manager.buy("com.tally.echo.3hours")
            // The hold reaches the server; its answer does not.
            transport.fail(.answerLost)
            await #expect(throws: TallyError.self) { try await manager.consume("seconds", amount: 300, for: "recording-1") { () } }
            #expect(try await delivery.account(storeEntitlements: []).balance("seconds").held == 300)
            await manager.stop()

            let relaunched = try await device.launch(delivery: delivery, database: try await device.database(), productIDs: ["com.tally.echo.3hours"])
            let balance = try await delivery.account(storeEntitlements: []).balance("seconds")
            #expect(balance.held == 0 && balance.available == 10_800, "\(balance)")
            #expect(try await relaunched.journal.pendingSpends().isEmpty)
        }
    }

    // MARK: Orders, anti-loss and backoff

    @Test func aCancelledPaymentClosesItsOrder() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, delivery) = try await Self.signedUp(device, server)
            await device.store.nextPurchase(.userCancelled)
            #expect(try await manager.purchase("com.tally.photo.credits.10") == .cancelled)
            let intent = try #require(try await manager.journal.intents().first)
            #expect(intent.state == "abandoned")
            #expect(try await delivery.order(try #require(intent.ticket.orderID)).status == .failed)
        }
    }

    @Test func anAskToBuyThatIsNeverApprovedHasItsOrderClosedAtALaterStart() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, delivery) = try await Self.signedUp(device, server)
            await device.store.nextPurchase(.askToBuy)
            #expect(try await manager.purchase("com.tally.photo.credits.10") == .pending)
            let orderID = try #require(try await manager.journal.intents().first?.ticket.orderID)
            await manager.stop()
            // The same user opens the app again: a day later the request may still be answered.
            let relaunch = { try await device.launch(delivery: delivery, database: try await device.database(), productIDs: Self.photoProducts) }
            device.time.advance(by: 86_400)
            let next = try await relaunch()
            #expect(try await next.journal.intents().first?.state == "pending")
            await next.stop()
            device.time.advance(by: 2 * 86_400)
            let later = try await relaunch()
            #expect(try await later.journal.intents().first?.state == "abandoned")
            // Closed, not dangling (the server may have expired it first).
            #expect([OrderStatus.failed, .expired].contains(try await delivery.order(orderID).status))
        }
    }

    @Test func aQuantityOutsideOneToTenChangesNothing() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server)
            for quantity in [0, -1, 11] {
                let error = await #expect(throws: TallyError.self) { try await manager.purchase("com.tally.photo.credits.10", quantity: quantity) }
                #expect(error?.code == .invalidRequest)
            }
            #expect(try await manager.journal.intents().isEmpty)
            #expect(try await device.appStore.history(includingFinishedConsumables: true).isEmpty)
        }
    }

    @Test func whenTheOrderCannotBeCreatedNoPaymentSheetIsShown() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let (manager, _) = try await Self.signedUp(device, server, transport: transport) { $0.attemptsDuringPurchase = 1 }
            transport.fail(.timeout)
            let error = await #expect(throws: TallyError.self) { try await manager.purchase("com.tally.photo.credits.10") }
            #expect(error?.code == .networkError)
            #expect(try await device.appStore.history(includingFinishedConsumables: true).isEmpty)
        }
    }

    @Test func serverUnreachableAfterPaymentIsRetriedWithBackoffAndCreditedOnce() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let gate = Gate()
            let (paused, _) = try await Self.signedUp(device, server, transport: transport) {
                $0.attemptsDuringPurchase = 1
                $0.checkpoint = { step, _ in if step == .paid { await gate.wait() } }
            }
            // The order is made, then the server fails while the customer pays.
            let buying = Task { try await paused.purchase("com.tally.photo.credits.10") }
            await gate.arrived()
            transport.failAlways(.serverError)
            await gate.open()
            // Paid, not delivered: no error (buying again would charge again), the credit is on its way.
            guard case .deliveryPending(let transactionID) = try await buying.value else {
                Issue.record("a paid purchase whose delivery failed is to be reported as deliveryPending")
                return
            }
            #expect(try await paused.journal.unfinished().first?.transaction.id == transactionID)
            #expect(try await paused.journal.unfinished().first?.lastError == "server_unavailable")
            #expect(!(await device.appStore.isFinished(transactionID: transactionID)))

            // Backoff: 1 s, 2 s, 4 s … each retry fails while the server is down.
            for expected in [1, 2, 4] {
                await device.clock.waitForSleepers(1)
                let before = transport.requestCount
                device.clock.advance(by: .seconds(expected - 1))
                // Still asleep (advance wakes a due sleeper at once): no retry before its time.
                #expect(device.clock.sleeperCount == 1, "retried before \(expected) s")
                #expect(transport.requestCount == before)
                device.clock.advance(by: .seconds(1))
                await eventually("the request sent") { transport.requestCount > before }
            }
            transport.heal()
            var updates = paused.accountUpdates().makeAsyncIterator()
            _ = await updates.next()
            await device.clock.waitForSleepers(1)
            device.clock.advance(by: .seconds(8))
            while let state = await updates.next(), state.balance("credits").available != 12 {}
            #expect(try await paused.available("credits") == 12)
            #expect(await device.appStore.isFinished(transactionID: transactionID))
            #expect(try await paused.journal.unfinished().isEmpty)
            #expect(await paused.scheduledRetries == 0)
        }
    }

    @Test func aLostAnswerIsNotFinishedUntilAnAnswerNamesTheTransaction() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let transport = FlakyTransport()
            let gate = Gate()
            let (manager, _) = try await Self.signedUp(device, server, transport: transport) {
                $0.attemptsDuringPurchase = 2
                $0.checkpoint = { step, _ in if step == .paid { await gate.wait() } }
            }
            let buying = Task { try await manager.buy("com.tally.photo.credits.10") }
            await gate.arrived()
            // The purchase post reaches the server, which credits it, but its answer is lost.
            transport.fail(.answerLost)
            await gate.open()
            await device.clock.waitForSleepers(1)
            let transactionID = try #require(try await manager.journal.unfinished().first?.transaction.id)
            #expect(!(await device.appStore.isFinished(transactionID: transactionID)))
            device.clock.advance(by: .seconds(1))
            let receipt = try await buying.value
            #expect(receipt.replayed)
            #expect(try await manager.available("credits") == 12)
        }
    }

    @Test func twoPurchasesOfOneProductWithAnApprovalInBetweenAreBothCredited() async throws {
        // The first waits for Ask to Buy with its order open; the second is paid at once; the
        // first's approval arrives later through updates. Each must be credited, neither refused.
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server)
            await device.store.nextPurchase(.askToBuy)
            #expect(try await manager.purchase("com.tally.photo.credits.10") == .pending)
            _ = try await manager.buy("com.tally.photo.credits.10")
            #expect(try await manager.available("credits") == 12)

            var updates = manager.accountUpdates().makeAsyncIterator()
            let pending = try #require(await device.appStore.pendingPurchases.first)
            try await device.appStore.approveAskToBuy(pending.id)
            while let state = await updates.next(), state.balance("credits").available != 22 {}
            #expect(try await manager.available("credits") == 22)
            let entries = try await manager.journal.all()
            #expect(entries.count == 2 && entries.allSatisfy { $0.state == .finished }, "\(entries.map { ($0.state, $0.lastError) })")
        }
    }

    @Test func aPaidTransactionMatchedToAnOrderAnotherOnePaidIsStillCredited() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, delivery) = try await Self.signedUp(device, server)
            _ = try await manager.buy("com.tally.photo.credits.10")
            let fulfilled = try #require(try await manager.journal.intents().first?.ticket.orderID)
            #expect(try await delivery.order(fulfilled).status == .fulfilled)
            // Another paid transaction of the product arrives carrying that order (a wrong match).
            guard
                case .success(let paid) = try await device.appStore.purchase(
                    "com.tally.photo.credits.10", options: .init(appAccountToken: delivery.credentials.appAccountToken, outcome: .success))
            else {
                Issue.record("the purchase did not succeed")
                return
            }
            let result = await manager.process(try StoreTransaction(jws: paid.jws), orderID: fulfilled)
            #expect((try? result.get())?.granted.first?.amount == 10, "\(result)")
            #expect(try await manager.available("credits") == 22)
            #expect(await device.appStore.isFinished(transactionID: paid.transactionID))
        }
    }

    @Test func aTransactionOfAnotherUserIsRefusedAndNotFinished() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server)
            // Another user's purchase, made with that user's app account token, shows up on this device.
            let other = try await ServerDelivery.register(baseURL: server.baseURL)
            guard
                case .success(let paid) = try await device.appStore.purchase(
                    "com.tally.photo.credits.10", options: .init(appAccountToken: other.appAccountToken, outcome: .success))
            else {
                Issue.record("the purchase did not succeed")
                return
            }
            try await device.store.redeliver(transactionID: paid.transactionID)
            try await eventually("the purchase rejected") { try await manager.journal.unfinished().first?.state == .rejected }
            #expect(try await manager.journal.unfinished().first?.lastError == "transaction_belongs_to_another_user")
            #expect(!(await device.appStore.isFinished(transactionID: paid.transactionID)))
            #expect(try await manager.available("credits") == 2)
        }
    }

    @Test func aRefundArrivingThroughUpdatesIsTakenBackByTheServer() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            let (manager, _) = try await Self.signedUp(device, server)
            let receipt = try await manager.buy("com.tally.photo.credits.10")
            #expect(try await manager.available("credits") == 12)
            var updates = manager.accountUpdates().makeAsyncIterator()
            _ = await updates.next()
            _ = try await device.appStore.refund(transactionID: receipt.transactionID)
            while let state = await updates.next(), state.balance("credits").available != 2 {}
            #expect(try await manager.available("credits") == 2)
        }
    }
}
