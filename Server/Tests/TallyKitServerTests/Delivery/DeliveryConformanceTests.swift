import Foundation
import TallyCore
import TallyKit
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

/// The behaviour every ``Delivery`` promises, held against both: ``OnDeviceLedger`` on the
/// device's SQLite database and ``ServerDelivery`` talking to a Tally server on loopback. Each
/// test runs once per delivery, through the protocol only, with transactions signed by one
/// simulated App Store.
///
/// Where the two differ by design, the suite tests what both do:
/// - Only the server grants sign-up credits and subscription allowances, so the suite uses
///   currencies with neither (`seconds` from the three-hour pack, the report currencies).
/// - Only the device's credit history names the lots a spend took from, so FIFO is observed
///   through what a refund takes back.
/// - An expired hold returns on the device at its next write, on the server at the next spend
///   or hold of its currency (or the server's sweeper), so the suite observes it by spending.
/// Both take the lot delivered first (not the earliest purchase date): a purchase delivered late
/// does not jump ahead of credits already there.
@Suite(.timeLimit(.minutes(2))) struct DeliveryConformanceTests {
    /// One of the two deliveries, made fresh for each test.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case onDevice, server

        var testDescription: String { rawValue }

        /// Runs `body` with a fresh delivery of this kind and a phone whose App Store sells the example catalog.
        func run(_ body: @Sendable (Fixture) async throws -> Void) async throws {
            let device = try await Device()
            switch self {
            case .onDevice:
                let ledger = try await OnDeviceLedger(
                    database: try await device.database(), catalog: Kit.onDeviceCatalog, verifier: Kit.verifier(now: device.time.closure),
                    now: { device.now }, uptime: { device.uptime })
                try await body(Fixture(delivery: ledger, device: device))
            case .server:
                try await LiveServer.run(time: device.time) { server in
                    let credentials = try await ServerDelivery.register(baseURL: server.baseURL)
                    try await body(Fixture(delivery: ServerDelivery(baseURL: server.baseURL, credentials: credentials), device: device))
                }
            }
        }
    }

    /// A delivery and the App Store whose transactions it is given.
    struct Fixture: Sendable {
        let delivery: any Delivery
        let device: Device

        /// Pays for a product as an app does: prepared with the delivery, bought from the store.
        func pay(_ productID: String) async throws -> (StoreTransaction, PurchaseTicket) {
            let ticket = try await delivery.prepare(productID: productID)
            let result = try await device.appStore.purchase(productID, options: .init(appAccountToken: ticket.appAccountToken))
            guard case .success(let signed) = result else { throw KitTestFailure("expected a paid transaction, got \(result)") }
            return (try StoreTransaction(jws: signed.jws), ticket)
        }

        /// Pays for a product and delivers it; a day passes first, so that purchases are apart in time.
        func buy(_ productID: String) async throws -> StoreTransaction {
            try await device.advance(days: 1)
            let (transaction, ticket) = try await pay(productID)
            let receipt = try await delivery.deliver(transaction, ticket: ticket)
            #expect(!receipt.replayed)
            return transaction
        }

        /// The store refunds a transaction; its re-signed form is what the delivery is given.
        func refund(_ transaction: StoreTransaction) async throws -> StoreTransaction {
            try StoreTransaction(jws: try await device.appStore.refund(transactionID: transaction.id).jws)
        }

        func balance(_ currency: String) async throws -> Balance {
            try await delivery.account(storeEntitlements: []).balance(currency)
        }
    }

    static let threeHours = "com.tally.echo.3hours"

    // MARK: Replay

    @Test(arguments: Kind.allCases)
    func theSameSignedTransactionDeliveredTwiceCreditsOnce(_ kind: Kind) async throws {
        try await kind.run { fixture in
            let (transaction, ticket) = try await fixture.pay(Self.threeHours)
            let first = try await fixture.delivery.deliver(transaction, ticket: ticket)
            #expect(!first.replayed)
            #expect(first.transactionID == transaction.id)
            #expect(first.granted == [Amount(currency: "seconds", amount: 10_800)])
            #expect(first.balances.first { $0.currency == "seconds" }?.available == 10_800)

            let again = try await fixture.delivery.deliver(transaction, ticket: ticket)
            #expect(again.replayed)
            #expect(again.transactionID == transaction.id)
            #expect(again.granted == [Amount(currency: "seconds", amount: 10_800)])
            #expect(again.balances.first { $0.currency == "seconds" }?.available == 10_800)
            // Delivered without its ticket, as after a restart that lost it: still once.
            #expect(try await fixture.delivery.deliver(transaction, ticket: nil).replayed)
            #expect(try await fixture.balance("seconds").available == 10_800)
        }
    }

    @Test(arguments: Kind.allCases)
    func aSpendRetriedWithItsKeySpendsOnceAndTheKeyCannotSpendSomethingElse(_ kind: Kind) async throws {
        try await kind.run { fixture in
            _ = try await fixture.buy(Self.threeHours)
            let order = SpendOrder(currency: "seconds", amount: 600, idempotencyKey: "take-1", reference: "take-1")
            let first = try await fixture.delivery.spend(order)
            #expect(!first.replayed)
            #expect(first.amount == 600)
            #expect(first.balance.available == 10_200)
            let again = try await fixture.delivery.spend(order)
            #expect(again.replayed)
            #expect(again.amount == 600)
            #expect(again.balance.available == 10_200)

            let reused = await #expect(throws: TallyError.self) {
                try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 900, idempotencyKey: "take-1"))
            }
            #expect(reused?.code == .invalidRequest)
            #expect(try await fixture.balance("seconds").available == 10_200)
        }
    }

    @Test(arguments: Kind.allCases)
    func aSpendOfMoreThanIsAvailableIsRefusedAndChangesNothing(_ kind: Kind) async throws {
        try await kind.run { fixture in
            _ = try await fixture.buy(Self.threeHours)
            let error = await #expect(throws: TallyError.self) {
                try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 10_801, idempotencyKey: "too-much"))
            }
            #expect(error?.code == .insufficientCredits)
            #expect(error?.currency == "seconds")
            #expect(error?.available == 10_800)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 10_800, held: 0, debt: 0, spendable: 10_800))
            // The refused key was not used up.
            #expect(try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 10_800, idempotencyKey: "too-much")).replayed == false)
        }
    }

    // MARK: Oldest lot first

    @Test(arguments: Kind.allCases)
    func spendsTakeTheOldestPurchaseFirst(_ kind: Kind) async throws {
        try await kind.run { fixture in
            let older = try await fixture.buy(Self.threeHours)
            _ = try await fixture.buy(Self.threeHours)
            // 12,000 of 21,600: the older pack is used up, 1,200 come from the newer one.
            _ = try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 12_000, idempotencyKey: "long-take"))
            // So refunding the older pack finds nothing left of it to take back: all of it is owed.
            let receipt = try await fixture.delivery.deliver(try await fixture.refund(older), ticket: nil)
            #expect(receipt.granted.isEmpty)
            let seconds = try #require(receipt.balances.first { $0.currency == "seconds" })
            #expect(seconds.available == 9_600)
            #expect(seconds.debt == 10_800)
        }
    }

    /// A pack bought first but delivered second (an interrupted purchase finished at the next
    /// launch) is spent after the pack that was already there.
    @Test(arguments: Kind.allCases)
    func spendsTakeTheLotDeliveredFirstWhateverItsPurchaseDate(_ kind: Kind) async throws {
        try await kind.run { fixture in
            try await fixture.device.advance(days: 1)
            let (boughtFirst, firstTicket) = try await fixture.pay(Self.threeHours)
            try await fixture.device.advance(days: 1)
            _ = try await fixture.buy(Self.threeHours)
            #expect(!(try await fixture.delivery.deliver(boughtFirst, ticket: firstTicket)).replayed)
            // 12,000 of 21,600: the pack delivered first is used up, 1,200 come from the one bought first.
            _ = try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 12_000, idempotencyKey: "long-take"))
            // Refunding the pack bought first takes back its 9,600 left and owes the 1,200 spent of it.
            let receipt = try await fixture.delivery.deliver(try await fixture.refund(boughtFirst), ticket: nil)
            let seconds = try #require(receipt.balances.first { $0.currency == "seconds" })
            #expect(seconds.available == 0)
            #expect(seconds.debt == 1_200)
        }
    }

    @Test(arguments: Kind.allCases)
    func oneUnitPerPurchaseIsTakenOldestFirst(_ kind: Kind) async throws {
        try await kind.run { fixture in
            let first = try await fixture.buy(Kit.report("career"))
            let second = try await fixture.buy(Kit.report("career"))
            _ = try await fixture.delivery.spend(SpendOrder(currency: "report.career", amount: 1, idempotencyKey: "report-1"))
            // The second report is unused: its refund takes it back and leaves no debt.
            _ = try await fixture.delivery.deliver(try await fixture.refund(second), ticket: nil)
            #expect(try await fixture.balance("report.career") == Balance(currency: "report.career", available: 0, held: 0, debt: 0, spendable: 0))
            // The first was used: its refund is owed.
            _ = try await fixture.delivery.deliver(try await fixture.refund(first), ticket: nil)
            #expect(try await fixture.balance("report.career") == Balance(currency: "report.career", available: 0, held: 0, debt: 1, spendable: 0))
        }
    }

    // MARK: Refund, debt, repayment

    @Test(arguments: Kind.allCases)
    func aRefundTakesBackTheRestOwesTheSpentPartAndTheNextPurchaseRepaysIt(_ kind: Kind) async throws {
        try await kind.run { fixture in
            let pack = try await fixture.buy(Self.threeHours)
            _ = try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 4_000, idempotencyKey: "session-1"))

            let refunded = try await fixture.refund(pack)
            let receipt = try await fixture.delivery.deliver(refunded, ticket: nil)
            #expect(receipt.transactionID == pack.id)
            #expect(receipt.granted.isEmpty)
            // This delivery applied the refund: it is no replay.
            #expect(!receipt.replayed)
            let owed = Balance(currency: "seconds", available: 0, held: 0, debt: 4_000, spendable: 0)
            #expect(try await fixture.balance("seconds") == owed)
            // The refund delivered again takes nothing more.
            #expect(try await fixture.delivery.deliver(refunded, ticket: nil).replayed)
            #expect(try await fixture.balance("seconds") == owed)
            // Nothing can be spent while it is owed.
            let error = await #expect(throws: TallyError.self) {
                try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 1, idempotencyKey: "session-2"))
            }
            #expect(error?.code == .insufficientCredits)

            // The next pack repays the debt first; the rest is spendable.
            let (next, ticket) = try await fixture.pay(Self.threeHours)
            let repaid = try await fixture.delivery.deliver(next, ticket: ticket)
            #expect(repaid.granted == [Amount(currency: "seconds", amount: 10_800)])
            #expect(repaid.balances.first { $0.currency == "seconds" } == Balance(currency: "seconds", available: 6_800, held: 0, debt: 0, spendable: 6_800))
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 6_800, held: 0, debt: 0, spendable: 6_800))
            #expect(try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 6_800, idempotencyKey: "session-2")).balance.available == 0)
        }
    }

    @Test(arguments: Kind.allCases)
    func aRefundOfAnUnspentPurchaseTakesAllOfItBackAndOwesNothing(_ kind: Kind) async throws {
        try await kind.run { fixture in
            let pack = try await fixture.buy(Self.threeHours)
            _ = try await fixture.buy(Self.threeHours)
            _ = try await fixture.delivery.deliver(try await fixture.refund(pack), ticket: nil)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 10_800, held: 0, debt: 0, spendable: 10_800))
        }
    }

    @Test(arguments: Kind.allCases)
    func aPurchaseWhoseRefundArrivedFirstCreditsNothing(_ kind: Kind) async throws {
        try await kind.run { fixture in
            let (paid, ticket) = try await fixture.pay(Self.threeHours)
            let refund = try await fixture.delivery.deliver(try await fixture.refund(paid), ticket: nil)
            #expect(refund.granted.isEmpty)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 0, held: 0, debt: 0, spendable: 0))
            // The paid form arriving late (an old queue, a slow network) credits nothing either.
            let late = try await fixture.delivery.deliver(paid, ticket: ticket)
            #expect(late.granted.isEmpty)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 0, held: 0, debt: 0, spendable: 0))
        }
    }

    // MARK: Reservations

    @Test(arguments: Kind.allCases)
    func reserveSixtyCommitFortyTwoAndEighteenComeBack(_ kind: Kind) async throws {
        try await kind.run { fixture in
            _ = try await fixture.buy(Self.threeHours)
            let order = ReservationOrder(currency: "seconds", amount: 60, ttlSeconds: 600, idempotencyKey: "recording-1")
            let held = try await fixture.delivery.reserve(order)
            #expect(!held.replayed)
            #expect(held.status == .held)
            #expect(held.amount == 60)
            #expect(held.balance.available == 10_740)
            #expect(held.balance.held == 60)
            // The same reservation asked again holds nothing more.
            let again = try await fixture.delivery.reserve(order)
            #expect(again.replayed)
            #expect(again.reservationID == held.reservationID)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 10_740, held: 60, debt: 0, spendable: 10_740))

            let committed = try await fixture.delivery.commit(reservationID: held.reservationID, used: 42)
            #expect(!committed.replayed)
            #expect(committed.status == .committed)
            #expect(committed.used == 42)
            #expect(committed.balance.available == 10_758)
            #expect(committed.balance.held == 0)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 10_758, held: 0, debt: 0, spendable: 10_758))
        }
    }

    @Test(arguments: Kind.allCases)
    func aCommittedReservationCannotBeCommittedOrReleasedAgain(_ kind: Kind) async throws {
        try await kind.run { fixture in
            _ = try await fixture.buy(Self.threeHours)
            let held = try await fixture.delivery.reserve(
                ReservationOrder(currency: "seconds", amount: 60, ttlSeconds: 600, idempotencyKey: "recording-1"))
            _ = try await fixture.delivery.commit(reservationID: held.reservationID, used: 42)
            let after = Balance(currency: "seconds", available: 10_758, held: 0, debt: 0, spendable: 10_758)

            // The same commit retried is answered again and spends nothing more.
            let retried = try await fixture.delivery.commit(reservationID: held.reservationID, used: 42)
            #expect(retried.replayed)
            #expect(retried.used == 42)
            #expect(try await fixture.balance("seconds") == after)

            let other = await #expect(throws: TallyError.self) { try await fixture.delivery.commit(reservationID: held.reservationID, used: 10) }
            #expect(other?.code == .reservationClosed)
            let release = await #expect(throws: TallyError.self) { try await fixture.delivery.release(reservationID: held.reservationID) }
            #expect(release?.code == .reservationClosed)
            #expect(try await fixture.balance("seconds") == after)
        }
    }

    @Test(arguments: Kind.allCases)
    func aReleasedReservationReturnsEverythingAndCannotBeCommitted(_ kind: Kind) async throws {
        try await kind.run { fixture in
            _ = try await fixture.buy(Self.threeHours)
            let held = try await fixture.delivery.reserve(
                ReservationOrder(currency: "seconds", amount: 60, ttlSeconds: 600, idempotencyKey: "recording-1"))
            let released = try await fixture.delivery.release(reservationID: held.reservationID)
            #expect(!released.replayed)
            #expect(released.status == .released)
            let whole = Balance(currency: "seconds", available: 10_800, held: 0, debt: 0, spendable: 10_800)
            #expect(try await fixture.balance("seconds") == whole)

            let commit = await #expect(throws: TallyError.self) { try await fixture.delivery.commit(reservationID: held.reservationID, used: 42) }
            #expect(commit?.code == .reservationClosed)
            let zero = await #expect(throws: TallyError.self) { try await fixture.delivery.commit(reservationID: held.reservationID, used: 0) }
            #expect(zero?.code == .reservationClosed)
            // A release retried is answered again and returns nothing more.
            let again = try await fixture.delivery.release(reservationID: held.reservationID)
            #expect(again.replayed)
            #expect(again.status == .released)
            #expect(try await fixture.balance("seconds") == whole)
        }
    }

    @Test(arguments: Kind.allCases)
    func anExpiredReservationReturnsEverythingAndCannotBeCommitted(_ kind: Kind) async throws {
        try await kind.run { fixture in
            _ = try await fixture.buy(Self.threeHours)
            let held = try await fixture.delivery.reserve(
                ReservationOrder(currency: "seconds", amount: 60, ttlSeconds: 600, idempotencyKey: "recording-1"))
            try await fixture.device.advance(seconds: 601)
            let commit = await #expect(throws: TallyError.self) { try await fixture.delivery.commit(reservationID: held.reservationID, used: 42) }
            #expect(commit?.code == .reservationClosed)
            // Every second of the pack can be spent again.
            let spent = try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 10_800, idempotencyKey: "everything"))
            #expect(spent.balance == Balance(currency: "seconds", available: 0, held: 0, debt: 0, spendable: 0))
        }
    }

    @Test(arguments: Kind.allCases)
    func aCommitOfMoreThanWasReservedIsRefusedAndChangesNothing(_ kind: Kind) async throws {
        try await kind.run { fixture in
            _ = try await fixture.buy(Self.threeHours)
            let held = try await fixture.delivery.reserve(
                ReservationOrder(currency: "seconds", amount: 60, ttlSeconds: 600, idempotencyKey: "recording-1"))
            let error = await #expect(throws: TallyError.self) { try await fixture.delivery.commit(reservationID: held.reservationID, used: 61) }
            #expect(error?.code == .invalidRequest)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 10_740, held: 60, debt: 0, spendable: 10_740))
            #expect(try await fixture.delivery.commit(reservationID: held.reservationID, used: 60).balance.available == 10_740)
        }
    }

    @Test(arguments: Kind.allCases)
    func unitsAHoldGivesBackRepayADebtFirst(_ kind: Kind) async throws {
        try await kind.run { fixture in
            let first = try await fixture.buy(Self.threeHours)
            _ = try await fixture.delivery.spend(SpendOrder(currency: "seconds", amount: 10_000, idempotencyKey: "take-1"))
            // 800 of the pack are left, all of them held when the refund arrives: 10,000 is owed.
            let held = try await fixture.delivery.reserve(
                ReservationOrder(currency: "seconds", amount: 800, ttlSeconds: 600, idempotencyKey: "recording-1"))
            _ = try await fixture.delivery.deliver(try await fixture.refund(first), ticket: nil)
            #expect(try await fixture.balance("seconds") == Balance(currency: "seconds", available: 0, held: 800, debt: 10_800, spendable: 0))
            // 300 used; the 500 returned go to the debt, not back to the balance.
            let committed = try await fixture.delivery.commit(reservationID: held.reservationID, used: 300)
            #expect(committed.balance == Balance(currency: "seconds", available: 0, held: 0, debt: 10_300, spendable: 0))
        }
    }
}
