import Foundation
import TallyCore
import TallyKitTesting
import TallySQL
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// An astrology app with per-report credits and no backend: the paywall, buying, generating a
/// report, stacking, restoring, and what must never happen to a paid credit.
@Suite(.timeLimit(.minutes(2))) struct ReportCreditsOnDeviceTests {
    // MARK: A single report bought for oneself

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func paywallShowsTheReportWithTheStoresPrice() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let paywall = await PaywallModel(manager: manager, productIDs: [Kit.report("personality")], language: .english)
        await paywall.load()
        let item = try #require(await paywall.items.first)
        #expect(item.title == "Personality Analysis")
        #expect(item.aiExplanation?.contains("AI model") == true)
        #expect(item.benefits.count == 3)
        #expect(item.displayPrice == "$4.99")
        #expect(item.button == .idle)
        #expect(item.buttonTitle == "Buy for $4.99")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func purchaseThenGenerateConsumesTheCreditAfterTheReportIsSaved() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let currency = "report.personality"
        #expect(await manager.lockState(currency) == .locked)

        let receipt = try await manager.buy(Kit.report("personality"))
        #expect(receipt.granted == [Amount(currency: currency, amount: 1)])
        #expect(await manager.lockState(currency) == .unlocked)
        // The store was told to finish it only now that the credit is in the ledger.
        #expect(await device.appStore.isFinished(transactionID: receipt.transactionID))

        let report = try await manager.consume(currency, for: "profile-self") { "Your chart says…" }
        #expect(report == "Your chart says…")
        #expect(try await manager.available(currency) == 0)
        #expect(await manager.lockState(currency) == .locked)
        let consumed = try await manager.creditHistory(currency: currency).consumptions
        #expect(consumed.count == 1)
        #expect(consumed.first?.reference == "profile-self")
        #expect(consumed.first?.date == device.time.now)
    }

    // MARK: The same report again, for another profile

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func repeatPurchasesStackAndTheOldestCreditIsUsedFirst() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let first = try await manager.buy(Kit.report("career"))
        device.time.advance(by: 60)
        _ = try await manager.buy(Kit.report("career"))
        #expect(try await manager.available("report.career") == 2)

        _ = try await manager.consume("report.career", for: "profile-mum") { true }
        #expect(try await manager.available("report.career") == 1)
        // FIFO: the credit of the first purchase went first.
        let entries = try await device.database().read { executor in
            try await executor.query(
                "SELECT l.transaction_id FROM lot_takes t JOIN lots l ON l.id = t.lot_id WHERE t.kind = 'spend'", []
            ).map {
                try $0.optionalText(SQLColumn("transaction_id"))
            }
        }
        #expect(entries == [first.transactionID])
        #expect(try await manager.creditHistory().consumptions.map(\.reference) == ["profile-mum"])
    }

    // MARK: Restoring interrupted purchases

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anInterruptedPurchaseComesBackAfterAReinstall() async throws {
        let device = try await Device()
        // Paid, but the app was killed before it heard back: the transaction stays unfinished.
        guard case .success(let paid) = try await device.appStore.purchase(Kit.report("wellness"), options: .init(outcome: .success)) else {
            Issue.record("the purchase did not succeed")
            return
        }
        device.reinstall()
        // The launch itself takes up the store's unfinished transactions…
        let (manager, _) = try await device.launchOnDevice()
        #expect(try await manager.available("report.wellness") == 1)
        // …and "Restore Interrupted Purchases" finds nothing more to credit.
        let restored = try await manager.restore()
        #expect(restored.account.balance("report.wellness").available == 1)
        #expect(try await manager.available("report.wellness") == 1)
        #expect(await device.appStore.isFinished(transactionID: paid.transactionID))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func consumedCreditsAreNotRestored() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("wellness"))
        _ = try await manager.consume("report.wellness", for: "profile-self") { () }
        await manager.stop()

        device.reinstall()
        let (again, _) = try await device.launchOnDevice()
        _ = try await again.restore()
        #expect(try await again.available("report.wellness") == 0)
    }

    // MARK: Browsing every report

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func firstLaunchShowsEveryReportLockedWithItsPrice() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let currencies = Kit.reports.map { "report.\($0)" }
        var states = manager.lockStates(for: currencies).makeAsyncIterator()
        let first = try #require(await states.next())
        #expect(first == Dictionary(uniqueKeysWithValues: currencies.map { ($0, PurchaseManager.LockState.locked) }))

        let paywall = await PaywallModel(manager: manager, productIDs: Kit.reports.map(Kit.report), language: .ukrainian)
        await paywall.load()
        let items = await paywall.items
        #expect(items.map(\.title) == ["Аналіз особистості", "Кар'єрні перспективи", "Сумісність у стосунках", "Здоров'я та енергія"])
        #expect(items.allSatisfy { $0.displayPrice != nil && $0.button == .idle })
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func lockStateFollowsPurchasesAsAStream() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        var states = manager.lockStates(for: ["report.career"]).makeAsyncIterator()
        #expect(await states.next() == ["report.career": .locked])
        _ = try await manager.buy(Kit.report("career"))
        #expect(await states.next() == ["report.career": .unlocked])
        _ = try await manager.consume("report.career") { () }
        #expect(await states.next() == ["report.career": .locked])
    }

    // MARK: Every payment and every credit, whatever happens

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aFailedGenerationLeavesTheCreditAvailable() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("relationship"))
        struct GenerationFailed: Error {}
        await #expect(throws: GenerationFailed.self) {
            try await manager.consume("report.relationship", for: "profile-self") { throw GenerationFailed() }
        }
        #expect(try await manager.available("report.relationship") == 1)
        #expect(try await manager.creditHistory().consumptions.isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func noCreditNoGeneration() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let ran = Flag()
        let error = await #expect(throws: TallyError.self) {
            try await manager.consume("report.career", for: "profile-self") { ran.set() }
        }
        #expect(error?.code == .insufficientCredits)
        #expect(error?.available == 0)
        #expect(!ran.value)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func cancellingThePaymentSheetChangesNothingAndShowsNothing() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        await device.store.nextPurchase(.userCancelled)
        let paywall = await PaywallModel(manager: manager, language: .english)
        await paywall.load()
        let outcome = await paywall.purchase(Kit.report("career"))
        #expect(outcome == .cancelled)
        #expect(await paywall.error == nil)
        #expect(try await manager.available("report.career") == 0)
        #expect(try await device.appStore.history(includingFinishedConsumables: true).isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aSecondTapWhilePayingIsRefused() async throws {
        let device = try await Device()
        let gate = Gate()
        let (manager, _) = try await device.launchOnDevice { $0.checkpoint = { step, _ in if step == .paid { await gate.wait() } } }
        let first = Task { try await manager.buy(Kit.report("career")) }
        await gate.arrived()
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .purchaseInProgress)
        await gate.open()
        _ = try await first.value
        #expect(try await manager.available("report.career") == 1)
        // Only one sheet was shown: one transaction.
        #expect(try await device.appStore.history(includingFinishedConsumables: true).count == 1)
        // Once it is over, the product can be bought again.
        _ = try await manager.buy(Kit.report("career"))
        #expect(try await manager.available("report.career") == 2)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func thePaywallButtonShowsProgressAndIgnoresTapsMeanwhile() async throws {
        let device = try await Device()
        let gate = Gate()
        let (manager, _) = try await device.launchOnDevice { $0.checkpoint = { step, _ in if step == .paid { await gate.wait() } } }
        let paywall = await PaywallModel(manager: manager, productIDs: [Kit.report("career")], language: .english)
        await paywall.load()
        let tap = Task { await paywall.purchase(Kit.report("career")) }
        await gate.arrived()
        #expect(await paywall.items.first?.button == .purchasing)
        #expect(await paywall.items.first?.buttonTitle == "Purchasing…")
        #expect(await paywall.purchase(Kit.report("career")) == nil)
        await gate.open()
        guard case .purchased? = await tap.value else {
            Issue.record("the purchase did not complete")
            return
        }
        #expect(await paywall.items.first?.button == .idle)
        #expect(try await manager.available("report.career") == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func buyingIsBlockedWhileAnUnusedCreditOfThatReportExists() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice { $0.blocksPurchaseWhileCreditUnused = true }
        _ = try await manager.buy(Kit.report("career"))
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .unusedCreditExists)
        // Other report types are not blocked, and after use the same type can be bought again.
        _ = try await manager.buy(Kit.report("wellness"))
        _ = try await manager.consume("report.career") { () }
        _ = try await manager.buy(Kit.report("career"))
        #expect(try await device.appStore.history(includingFinishedConsumables: true).count == 3)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func thePaywallShowsTheBlockOnTheButtonBeforeTheTap() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice { $0.blocksPurchaseWhileCreditUnused = true }
        let paywall = await PaywallModel(manager: manager, productIDs: [Kit.report("career"), Kit.report("wellness")], language: .english)
        await paywall.load()
        #expect(await paywall.items.map(\.button) == [.idle, .idle])
        guard case .purchased = await paywall.purchase(Kit.report("career")) else {
            Issue.record("the purchase through the paywall did not complete")
            return
        }
        // Bought, not used yet: another one cannot be bought, and the button says why.
        let career = try #require(await paywall.items.first)
        #expect(career.button == .disabled)
        #expect(career.buttonTitle == "1 unused credit")
        #expect(career.disabledReason == "Use your unused credit for this report before buying another.")
        #expect(await paywall.purchase(Kit.report("career")) == nil)
        #expect(await paywall.error == nil)
        // Another report is not blocked.
        #expect(await paywall.items.last?.button == .idle)
        #expect(await paywall.items.last?.disabledReason == nil)

        // A paywall opened later, in Ukrainian, shows the same.
        let later = await PaywallModel(manager: manager, productIDs: [Kit.report("career")], language: .ukrainian)
        await later.load()
        #expect(await later.items.first?.button == .disabled)
        #expect(await later.items.first?.buttonTitle == "1 невикористаний кредит")
        #expect(await later.items.first?.disabledReason == "Спершу використайте невикористаний кредит на цей звіт, а потім купуйте новий.")

        // Once the report is generated, the credit can be bought again.
        _ = try await manager.consume("report.career", for: "profile-self") { () }
        await paywall.load()
        #expect(await paywall.items.first?.button == .idle)
        #expect(await paywall.items.first?.buttonTitle == "Buy for $4.99")
        #expect(await paywall.items.first?.disabledReason == nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func withoutTheBlockAnUnusedCreditLeavesTheButtonAsItWas() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("career"))
        let paywall = await PaywallModel(manager: manager, productIDs: [Kit.report("career")], language: .english)
        await paywall.load()
        #expect(await paywall.items.first?.button == .idle)
        #expect(await paywall.items.first?.disabledReason == nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func eachCreditIsTracedFromItsPurchaseToTheProfileItWasUsedFor() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let first = try await manager.buy(Kit.report("career"))
        try await device.advance(seconds: 3600)
        let second = try await manager.buy(Kit.report("career"))
        try await device.advance(seconds: 60)
        _ = try await manager.consume("report.career", for: "profile-mum") { "report" }
        let usedAt = device.time.now
        _ = try await manager.buy(Kit.report("wellness"))

        let history = try await manager.creditHistory(currency: "report.career")
        #expect(history.acquisitions.map(\.transactionID) == [first.transactionID, second.transactionID])
        #expect(history.acquisitions.map(\.acquiredAt) == [Kit.start, Kit.start.addingTimeInterval(3600)])
        #expect(history.acquisitions.map(\.remaining) == [0, 1])
        let use = try #require(history.consumptions.first)
        #expect(history.consumptions.count == 1)
        #expect(use.reference == "profile-mum")
        #expect(use.amount == 1)
        #expect(use.date == usedAt)
        // The oldest credit paid for it.
        #expect(use.sources == [CreditHistory.Source(transactionID: first.transactionID, acquiredAt: Kit.start, amount: 1)])
        // Every currency at once, when none is named.
        #expect(try await manager.creditHistory().acquisitions.count == 3)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aPaidReportReadsUnlockedAfterDaysAwayEvenBeforeStart() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("career"))
        await manager.stop()
        // Four days later the cache is too old to stand in; the ledger still has the credit.
        device.time.advance(by: 4 * 86_400)
        let database = try await device.database()
        let notStarted = try await device.manager(
            delivery: try await device.onDeviceLedger(database), database: database, productIDs: [Kit.report("career")])
        #expect(await notStarted.lockState("report.career") == .unlocked)
        #expect(await notStarted.lockState("report.wellness") == .locked)
        var states = notStarted.lockStates(for: ["report.career"]).makeAsyncIterator()
        await notStarted.start()
        #expect(await states.next() == ["report.career": .unlocked])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func startReturnsBeforeLeftoversAreDeliveredAndTheCatchUpCanBeFollowed() async throws {
        let device = try await Device()
        // Paid, but the app was killed before it heard back: the store keeps it unfinished.
        guard case .success(let paid) = try await device.appStore.purchase(Kit.report("wellness"), options: .init(outcome: .success)) else {
            Issue.record("the purchase did not succeed")
            return
        }
        let gate = Gate()
        let database = try await device.database()
        let manager = try await device.manager(
            delivery: try await device.onDeviceLedger(database), database: database, productIDs: [Kit.report("wellness")]
        ) { $0.checkpoint = { step, _ in if step == .journaled { await gate.wait() } } }
        var states = manager.startupUpdates().makeAsyncIterator()
        #expect(await states.next() == .stopped)

        // The delivery of the leftover is held at the gate; start() returns all the same. (Were
        // it to wait for the delivery, the time limit would cancel the test and open the gate.)
        await withTaskCancellationHandler {
            await manager.start()
        } onCancel: {
            Task { await gate.open() }
        }
        #expect(await states.next() == .catchingUp)
        #expect(await manager.startupState == .catchingUp)
        #expect(await manager.lockState("report.wellness") == .locked)
        #expect(!(await device.appStore.isFinished(transactionID: paid.transactionID)))

        await gate.open()
        #expect(await states.next() == .caughtUp)
        await manager.waitUntilCaughtUp()
        #expect(await manager.lockState("report.wellness") == .unlocked)
        #expect(await device.appStore.isFinished(transactionID: paid.transactionID))
        await manager.stop()
        #expect(await states.next() == .stopped)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func offlinePurchasesAreNotStartedAndTheErrorSaysWhy() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        device.connectivity.set(online: false)
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .networkUnavailable)
        #expect(error?.presentation(in: .ukrainian).title == "Немає з'єднання з інтернетом")
        #expect(try await device.appStore.history(includingFinishedConsumables: true).isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aTransactionSignedForAnotherDeviceIsNotCreditedNorFinished() async throws {
        let device = try await Device()
        // The ledger knows this phone by another deviceVerificationID than the one StoreKit binds
        // its JWS to: what StoreKit hands over reads as copied from another device.
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database, verificationDevice: UUID())
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: [Kit.report("career")])
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .verificationFailed)
        #expect(error?.reason.contains("signed for another device") == true, "\(String(describing: error))")
        #expect(try await manager.available("report.career") == 0)
        #expect(try await device.appStore.unfinishedTransactions().count == 1, "left for StoreKit to offer again")

        // The app's data moved to this phone from another (a backup restored): the journal holds a
        // JWS bound to the other phone. At the next launch StoreKit hands the unfinished
        // transaction out again, bound to this one, and it is credited, once.
        let relaunched = try await device.launch(
            delivery: try await device.onDeviceLedger(database), database: database, productIDs: [Kit.report("career")])
        _ = try? await relaunched.retryUndelivered()
        #expect(try await relaunched.available("report.career") == 1)
        #expect(try await device.appStore.unfinishedTransactions().isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func tryAgainAfterAFailedVerificationDeliversAgainAndNeverChargesAgain() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let paywall = await PaywallModel(manager: manager, productIDs: [Kit.report("career")], language: .english)
        await paywall.load()
        await device.store.nextPurchase(.unverified)
        #expect(await paywall.purchase(Kit.report("career")) == nil)
        #expect(await paywall.error?.actionTitle == "Try Again")
        #expect(await paywall.errorCode == .verificationFailed)
        await paywall.tryAgain()
        // Delivered again, refused again (the signature is still bad); no second payment sheet.
        #expect(await paywall.errorCode == .verificationFailed)
        #expect(try await device.appStore.history(includingFinishedConsumables: true).count == 1)
        #expect(try await manager.available("report.career") == 0)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test(arguments: [
        (SimulatedAppStoreError.Code.paymentDeclined, TallyError.Code.paymentDeclined, ErrorPresentation.Action.ok),
        (.paymentNotAllowed, .paymentNotAllowed, .ok),
        (.networkError, .networkError, .tryAgain),
    ])
    func storeFailuresBecomeTypedErrors(_ failure: SimulatedAppStoreError.Code, _ expected: TallyError.Code, _ action: ErrorPresentation.Action) async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        await device.store.nextPurchase(.failure(failure))
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == expected)
        #expect(error?.presentation(in: .english).action == action)
        #expect(try await manager.available("report.career") == 0)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anUnknownProductIsProductNotFound() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let error = await #expect(throws: TallyError.self) { try await manager.purchase("com.tally.zorya.report.unknown") }
        #expect(error?.code == .productNotFound)
        #expect(error?.presentation(in: .english).title == "Not available")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func purchaseRecordAndCreditAreOneTransaction() async throws {
        let device = try await Device()
        let (manager, ledger) = try await device.launchOnDevice()
        let receipt = try await manager.buy(Kit.report("career"), quantity: 3)
        #expect(receipt.granted == [Amount(currency: "report.career", amount: 3)])
        let rows = try await device.database().read { executor in
            try await executor.query("SELECT quantity, price, currency FROM ledger_purchases WHERE transaction_id = ?", [.text(receipt.transactionID)])
        }
        #expect(try rows.first?.optionalInt(SQLColumn("quantity")) == 3)
        #expect(try rows.first?.optionalInt(SQLColumn("price")) == 14_970)
        #expect(try rows.first?.optionalText(SQLColumn("currency")) == "USD")
        #expect(try await ledger.balancesMatchEntries())
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func consumptionIsIrreversibleAndAudited() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("career"))
        _ = try await manager.consume("report.career", for: "profile-42") { () }
        let database = try await device.database()
        await #expect(throws: TallyError.self) {
            try await database.write { executor in try await executor.execute("DELETE FROM ledger_entries", []) }
        }
        await #expect(throws: TallyError.self) {
            try await database.write { executor in try await executor.execute("UPDATE ledger_entries SET amount = 1", []) }
        }
        let kinds = try await database.read { executor in
            try await executor.query("SELECT kind, reference FROM ledger_entries ORDER BY id", []).map {
                "\(try $0.optionalText(SQLColumn("kind")) ?? "")/\(try $0.optionalText(SQLColumn("reference")) ?? "-")"
            }
        }
        // A hold and its end move units between available and held: the ledger, as the server's,
        // records only what changes the balance.
        #expect(kinds == ["purchase/-", "spend/profile-42"])
        await #expect(throws: TallyError.self) {
            try await database.write { executor in try await executor.execute("DELETE FROM lot_takes", []) }
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aRefundArrivingThroughUpdatesTakesBackTheUnusedCredit() async throws {
        let device = try await Device()
        let events = device.analytics.events
        let (manager, ledger) = try await device.launchOnDevice()
        let kept = try await manager.buy(Kit.report("career"))
        let refunded = try await manager.buy(Kit.report("career"))
        #expect(try await manager.available("report.career") == 2)
        var updates = manager.accountUpdates().makeAsyncIterator()
        _ = await updates.next()
        _ = try await device.appStore.refund(transactionID: refunded.transactionID)
        while let state = await updates.next(), state.balance("report.career").available != 1 {}
        #expect(try await manager.available("report.career") == 1)
        #expect(try await ledger.balancesMatchEntries())
        var kinds: [PurchaseEvent.Kind] = []
        for await event in events {
            kinds.append(event.kind)
            if event.kind == .refunded { break }
        }
        #expect(kinds.last == .refunded)
        _ = kept
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aRefundMadeWhileTheAppWasClosedIsTakenBackAtTheNextLaunchOnce() async throws {
        let device = try await Device()
        let (manager, ledger) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("career"))
        let refunded = try await manager.buy(Kit.report("career"))
        await manager.stop()

        // Refunded while the app is not running: no updates stream hears of it.
        _ = try await device.appStore.refund(transactionID: refunded.transactionID)
        let (again, _) = try await device.launchOnDevice()
        #expect(try await again.available("report.career") == 1)
        #expect(try await ledger.balancesMatchEntries())
        // The launch after that finds it taken back already.
        await again.stop()
        let (third, _) = try await device.launchOnDevice()
        #expect(try await third.available("report.career") == 1)
        #expect(try await third.journal.all().filter { $0.eventID.hasSuffix(":revoked") }.count == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aCreditRefundedWhileItsReportIsGeneratingIsGoneWhetherTheReportFailsOrNot() async throws {
        for reportSucceeds in [false, true] {
            let device = try await Device()
            let (manager, ledger) = try await device.launchOnDevice()
            let receipt = try await manager.buy(Kit.report("career"))
            struct GenerationFailed: Error {}
            let refunded = Flag()
            _ = try? await manager.consume("report.career", for: "profile-1") {
                // The refund arrives and is applied while the report is being generated.
                _ = try await device.appStore.refund(transactionID: receipt.transactionID)
                try await eventually("the refund applied") { try await ledger.account(storeEntitlements: []).balance("report.career").debt > 0 }
                refunded.set()
                if !reportSucceeds { throw GenerationFailed() }
                return "report"
            }
            #expect(refunded.value)
            let balance = try await ledger.account(storeEntitlements: []).balance("report.career")
            // Nothing to use either way; a generated report was paid with the refunded credit: owed.
            #expect(balance.available == 0 && balance.held == 0, "\(balance)")
            #expect(balance.debt == (reportSucceeds ? 1 : 0), "report succeeded: \(reportSucceeds), \(balance)")
            #expect(await manager.lockState("report.career") == .locked)
            #expect(try await ledger.balancesMatchEntries())
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aHoldLeftByAnAppKilledDuringGenerationIsReleasedAtTheNextStart() async throws {
        let device = try await Device()
        let (manager, ledger) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("career"))
        let gate = Gate()
        // The report is being generated when the app dies: the work never ends.
        let generating = Task {
            try await manager.consume("report.career", for: "profile-1") {
                await gate.wait()
                return "report"
            }
        }
        await gate.arrived()
        #expect(try await ledger.account(storeEntitlements: []).balance("report.career").held == 1)
        await manager.stop()

        let (relaunched, _) = try await device.launchOnDevice()
        let balance = try await ledger.account(storeEntitlements: []).balance("report.career")
        #expect(balance.available == 1 && balance.held == 0, "\(balance)")
        #expect(await relaunched.lockState("report.career") == .unlocked)
        let report = try await relaunched.consume("report.career", for: "profile-1") { "report" }
        #expect(report == "report")
        #expect(try await relaunched.available("report.career") == 0)
        generating.cancel()
        await gate.open()
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aRefundOfAnAlreadyUsedCreditBecomesDebtThatTheNextPurchaseRepays() async throws {
        let device = try await Device()
        let (manager, ledger) = try await device.launchOnDevice()
        let bought = try await manager.buy(Kit.report("career"))
        _ = try await manager.consume("report.career", for: "profile-self") { () }
        var updates = manager.accountUpdates().makeAsyncIterator()
        _ = await updates.next()
        _ = try await device.appStore.refund(transactionID: bought.transactionID)
        while let state = await updates.next(), state.balance("report.career").debt != 1 {}
        #expect(try await manager.account(.fetchCurrent).balance("report.career").debt == 1)
        _ = try await manager.buy(Kit.report("career"))
        let balance = try await manager.account(.fetchCurrent).balance("report.career")
        #expect(balance.debt == 0)
        #expect(balance.available == 0)
        #expect(try await ledger.balancesMatchEntries())
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func askToBuyApprovedAfterARestartIsCreditedOnce() async throws {
        let device = try await Device { $0.askToBuyEnabled = true }
        let (manager, _) = try await device.launchOnDevice()
        let outcome = try await manager.purchase(Kit.report("career"))
        #expect(outcome == .pending)
        await manager.stop()

        // The parent approves while the app is not running.
        let pending = try #require(await device.appStore.pendingPurchases.first)
        let approved = try await device.appStore.approveAskToBuy(pending.id)

        let (again, _) = try await device.launchOnDevice()
        #expect(try await again.available("report.career") == 1)
        #expect(await device.appStore.isFinished(transactionID: approved.transactionID))
        // Launching once more delivers nothing new.
        await again.stop()
        let (third, _) = try await device.launchOnDevice()
        #expect(try await third.available("report.career") == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func askToBuyApprovedWhileRunningArrivesThroughUpdates() async throws {
        let device = try await Device { $0.askToBuyEnabled = true }
        let (manager, _) = try await device.launchOnDevice()
        #expect(try await manager.purchase(Kit.report("wellness")) == .pending)
        var updates = manager.accountUpdates().makeAsyncIterator()
        _ = await updates.next()
        let pending = try #require(await device.appStore.pendingPurchases.first)
        try await device.appStore.approveAskToBuy(pending.id)
        while let state = await updates.next(), state.balance("report.wellness").available != 1 {}
        #expect(try await manager.available("report.wellness") == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aReportPromotedOnTheAppStoreIsBoughtThroughTheAppsPipelineAtLaunch() async throws {
        let device = try await Device()
        // The person taps the promoted report on the App Store; the app opens with the intent.
        try await device.store.promote(Kit.report("relationship"))
        let (manager, _) = try await device.launchOnDevice()
        var updates = manager.accountUpdates().makeAsyncIterator()
        while let state = await updates.next(), state.balance("report.relationship").available != 1 {}
        #expect(try await manager.available("report.relationship") == 1)
        let journal = try await manager.journal.all()
        #expect(journal.count == 1 && journal.allSatisfy { $0.state == .finished })
        #expect(try await device.appStore.unfinishedTransactions().isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anAppThatDefersPurchaseIntentsGetsThemAndNothingIsBought() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice { $0.completesPurchaseIntents = false }
        var intents = await manager.purchaseIntents().makeAsyncIterator()
        try await device.store.promote(Kit.report("career"))
        let intent = await intents.next()
        #expect(intent?.productID == Kit.report("career"))
        #expect(try await device.appStore.history(includingFinishedConsumables: true).isEmpty)
        // The app buys when it is ready.
        _ = try await manager.buy(Kit.report("career"))
        #expect(try await manager.available("report.career") == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anUnknownProductCannotBePromoted() async throws {
        let device = try await Device()
        await #expect(throws: TallyError.self) { try await device.store.promote("com.tally.zorya.report.unknown") }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theLifetimeUnlockIsAnEntitlementFromTheStore() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let paywall = await PaywallModel(manager: manager, productIDs: ["com.tally.zorya.lifetime"], language: .english)
        await paywall.load()
        #expect(await paywall.items.first?.button == .idle)
        #expect(await paywall.restoreTitle == "Restore Purchases")
        guard case .purchased = await paywall.purchase("com.tally.zorya.lifetime") else {
            Issue.record("the purchase through the paywall did not complete")
            return
        }
        #expect(try await manager.account(.fetchCurrent).isActive("zorya.lifetime"))
        // Owned at once, and after a reload: the paywall offers nothing more to buy.
        #expect(await paywall.items.first?.buttonTitle == "Purchased")
        await paywall.load()
        #expect(await paywall.items.first?.button == .disabled)
        #expect(await paywall.items.first?.buttonTitle == "Purchased")
        device.reinstall()
        let (again, _) = try await device.launchOnDevice()
        _ = try await again.restore()
        #expect(try await again.account(.fetchCurrent).isActive("zorya.lifetime"))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func analyticsEventsCarryProductPriceCurrencyAndWhatWasGranted() async throws {
        let device = try await Device()
        let events = device.analytics.events
        let (manager, _) = try await device.launchOnDevice()
        _ = try await manager.buy(Kit.report("career"))
        await device.store.nextPurchase(.failure(.paymentDeclined))
        _ = try? await manager.purchase(Kit.report("career"))
        var seen: [PurchaseEvent] = []
        for await event in events {
            seen.append(event)
            if event.kind == .failed { break }
        }
        #expect(seen.map(\.kind) == [.started, .completed, .started, .failed])
        #expect(seen.allSatisfy { $0.productID == Kit.report("career") && $0.price == 4990 && $0.currency == "USD" })
        #expect(seen.last?.errorCode == "payment_declined")
        #expect(seen[1].granted == [Amount(currency: "report.career", amount: 1)], "a completed purchase says what it granted")
        #expect(seen.filter { $0.kind != .completed }.allSatisfy { $0.granted.isEmpty })
    }
}

/// A flag set from a `@Sendable` closure.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}
