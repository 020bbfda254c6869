import Foundation
import TallyCore
import TallySQL
import TallyTesting
import TallyVerify
import Testing

@testable import TallyServer

/// Every change to money or access writes its event in the same transaction, and only then.
@Suite struct EventOutboxTests {
    static func events(_ harness: Harness, user: User? = nil) async throws -> [TallyEvent] {
        try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: user?.id, limit: 1000).events
    }

    static func types(_ harness: Harness, user: User? = nil) async throws -> [TallyEventType] {
        try await events(harness, user: user).map(\.type)
    }

    @Test(arguments: Backend.available)
    func aPurchaseWritesOneEventWithWhatARevenueDashboardNeeds(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        #expect(try await Self.types(harness, user: user) == [.creditsGranted])
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user, quantity: 2)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        // A replay changes nothing, so it writes nothing.
        let replay = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(replay.replayed)
        let events = try await Self.events(harness, user: user)
        #expect(events.map(\.type) == [.creditsGranted, .purchaseGranted])
        let purchase = try #require(events.last)
        #expect(purchase.data.transactionID == verified.payload.transactionID)
        #expect(purchase.data.productID == "com.tally.photo.credits.10")
        #expect(purchase.data.quantity == 2)
        #expect(purchase.data.amounts == [Amount(currency: "credits", amount: 20)])
        #expect(purchase.data.price == verified.payload.price && purchase.data.price != nil)
        #expect(purchase.data.priceCurrency == verified.payload.currency)
        #expect(purchase.data.environment == verified.payload.environment?.rawValue)
        #expect(purchase.version == 1 && purchase.ordering == "unordered")
        #expect(purchase.sequence > events[0].sequence)
        // Under the 20 kB a receiver is promised.
        #expect(try TallyAPI.encoder().encode(purchase).count < 20_000)
    }

    /// A write's events are written at its end, in the order emitted, however many there are
    /// (more than one statement's worth here).
    @Test(arguments: Backend.available)
    func manyEventsOfOneWriteAreAllWrittenInTheirOrder(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let before = try await Self.events(harness, user: user).count
        try await harness.storage.transactions.write { executor, _ in
            for index in 0..<450 {
                var data = TallyEventData(userID: user.id)
                data.reference = "r\(index)"
                try await executor.outbox.emit(.creditsAdjusted, data)
            }
        }
        let written = try await Self.events(harness, user: user).dropFirst(before)
        #expect(written.map(\.data.reference) == (0..<450).map { "r\($0)" })
    }

    @Test(arguments: Backend.available)
    func aChangeThatRollsBackLeavesNoEvent(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let before = try await Self.events(harness).count
        // Not enough credits: the spend fails, and nothing of it stays.
        await #expect(throws: StorageError.self) {
            _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 500, idempotencyKey: "too-much"))
        }
        // The write fails after its event was emitted (a constraint the event cannot see): both go.
        await #expect(throws: (any Error).self) {
            try await harness.storage.transactions.write { executor, time in
                try await executor.outbox.emit(.creditsAdjusted, TallyEventData(userID: user.id))
                try await executor.execute("INSERT INTO users (id, app_account_token, created_at) VALUES (?, ?, 0)", [.text(user.id), .text("x")])
            }
        }
        #expect(try await Self.events(harness).count == before)
    }

    @Test(arguments: Backend.available)
    func spendsReservationsAdjustmentsAndRepaidDebtEachHaveTheirEvent(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        let spend = try await harness.storage.spending.spend(
            user: user, request: SpendRequest(currency: "credits", amount: 7, idempotencyKey: "s1", reference: "photo-1"))
        _ = try await harness.storage.spending.spend(
            user: user, request: SpendRequest(currency: "credits", amount: 7, idempotencyKey: "s1", reference: "photo-1"))
        let held = try await harness.storage.spending.reserve(
            user: user, request: ReservationRequest(currency: "credits", amount: 3, ttlSeconds: 60, idempotencyKey: "r1"))
        _ = try await harness.storage.spending.commit(user: user, reservationID: held.reservationID, used: 2)
        let other = try await harness.storage.spending.reserve(
            user: user, request: ReservationRequest(currency: "credits", amount: 1, ttlSeconds: 60, idempotencyKey: "r2"))
        _ = try await harness.storage.spending.release(user: user, reservationID: other.reservationID)
        // Spent first from the oldest lot (sign-up's 2), the purchase's lot keeps 1 of 10: the refund leaves debt.
        try await harness.store.refund(transactionID: verified.payload.transactionID!)
        let (refund, refundJWS) = try #require(
            try await harness.notifications().last { $0.0.payload.notificationType == .refund })
        #expect(try await harness.storage.notifications.apply(refund, jws: refundJWS) == .applied)
        _ = try await harness.storage.admin.adjust(
            userID: user.id, amount: Amount(currency: "credits", amount: 50), reason: "support", idempotencyKey: "a1")

        let events = try await Self.events(harness, user: user)
        #expect(
            events.map(\.type) == [
                .creditsGranted, .purchaseGranted, .creditsSpent, .reservationCreated, .reservationCommitted, .reservationCreated,
                .reservationReleased, .purchaseRefunded, .debtRepaid, .creditsAdjusted,
            ])
        let spent = try #require(events.first { $0.type == .creditsSpent })
        #expect(spent.data.spendID == spend.spendID && spent.data.amount == 7 && spent.data.reference == "photo-1")
        let committed = try #require(events.first { $0.type == .reservationCommitted })
        #expect(committed.data.amount == 3 && committed.data.used == 2 && committed.data.reservationID == held.reservationID)
        #expect(events.first { $0.type == .reservationReleased }?.data.reason == "released")
        let refunded = try #require(events.first { $0.type == .purchaseRefunded })
        let clawed = try #require(refunded.data.clawedBack?.first)
        #expect(clawed.currency == "credits" && clawed.removed + clawed.debt == 10 && clawed.debt > 0)
        let repaid = try #require(events.first { $0.type == .debtRepaid })
        #expect(repaid.data.amount == clawed.debt)
        #expect(events.last?.data.amount == 50 && events.last?.data.reason == "support")
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func subscriptionsSayWhenTheyStartRenewEnterGraceAndLapse(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        try await harness.store.updateSettings { $0.billingGracePeriodEnabled = true }
        let (verified, jws) = try await harness.buy("com.tally.pro.monthly", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        func applyAll() async throws {
            for (notification, signed) in try await harness.notifications() { _ = try await harness.storage.notifications.apply(notification, jws: signed) }
        }
        try await applyAll()
        try await harness.advance(by: .seconds(8 * 86_400))
        try await applyAll()
        try await harness.store.failNextRenewal(originalTransactionID: verified.payload.originalTransactionID!)
        try await harness.advance(by: .seconds(31 * 86_400))
        try await applyAll()
        try await harness.advance(by: .seconds(17 * 86_400))
        try await applyAll()
        let types = try await Self.types(harness, user: user).filter { $0 != .creditsGranted }
        // Entitlement events follow what GET /v1/me says at the moment of each change: each
        // notification here is applied days after the period it follows ended, so access that
        // had lapsed by the clock comes back with the renewal and with the grace period; when
        // the grace period's end is applied, access had already ended by the clock.
        #expect(
            types == [
                .purchaseGranted, .subscriptionStarted, .entitlementGranted, .purchaseGranted, .subscriptionRenewed, .entitlementGranted,
                .subscriptionGracePeriod, .entitlementGranted, .subscriptionBillingRetry,
            ])
        let started = try #require(try await Self.events(harness, user: user).first { $0.type == .subscriptionStarted })
        #expect(started.data.entitlements == ["pro"] && started.data.expiresAt != nil)
    }

    @Test(arguments: Backend.available)
    func aRenewalOnTimeAndARefundOfAnOldPeriodChangeNoAccess(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.pro.monthly", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        let firstExpiry = try #require(verified.payload.expiresDate)
        // The store renews at the period's end; the server takes the renewal an hour before it,
        // as Apple's renewals arrive ahead of the end.
        try await harness.advance(by: .seconds(8 * 86_400))
        harness.clock.set(firstExpiry.addingTimeInterval(-3600))
        for (notification, signed) in try await harness.notifications() { _ = try await harness.storage.notifications.apply(notification, jws: signed) }
        // The first period is refunded while the second goes on: access is unchanged.
        try await harness.store.refund(transactionID: verified.payload.transactionID!)
        let (refund, refundJWS) = try #require(try await harness.notifications().last { $0.0.payload.notificationType == .refund })
        #expect(try await harness.storage.notifications.apply(refund, jws: refundJWS) == .applied)
        let types = try await Self.types(harness, user: user).filter { $0 != .creditsGranted }
        #expect(
            types == [
                .purchaseGranted, .subscriptionStarted, .entitlementGranted, .purchaseGranted, .subscriptionRenewed, .purchaseRefunded,
                .subscriptionRevoked,
            ])
        #expect(try await harness.storage.users.account(user: user).entitlements.first { $0.id == "pro" }?.active == true)
    }

    @Test(arguments: Backend.available)
    func aRefundedNonConsumableRemovesItsEntitlementAndAReversalGivesItBack(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.zorya.lifetime", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        try await harness.store.refund(transactionID: verified.payload.transactionID!)
        let (refund, refundJWS) = try #require(try await harness.notifications().last { $0.0.payload.notificationType == .refund })
        _ = try await harness.storage.notifications.apply(refund, jws: refundJWS)
        _ = try await harness.storage.notifications.apply(refund, jws: refundJWS)
        let types = try await Self.types(harness, user: user).filter { $0 != .creditsGranted }
        #expect(types == [.purchaseGranted, .entitlementGranted, .purchaseRefunded, .entitlementRemoved])
    }

    @Test(arguments: Backend.available)
    func operatorGrantsAndRevocationsOfEntitlementsAreEvents(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let grant = try await harness.storage.console.grantEntitlement(
            actor: "ana", userID: user.id, entitlement: "pro", until: Harness.start.addingTimeInterval(86_400 * 7), reason: "support case",
            idempotencyKey: "g1")
        _ = try await harness.storage.console.revokeEntitlement(actor: "ana", userID: user.id, grantID: grant.id)
        let events = try await Self.events(harness, user: user).filter { $0.type != .creditsGranted }
        #expect(events.map(\.type) == [.entitlementGranted, .entitlementRemoved])
        #expect(events.first?.data.actor == "ana" && events.first?.data.entitlements == ["pro"])
    }

    @Test(arguments: Backend.available)
    func concurrentChangesToOnesAccessTellTheEndStateInOrder(backend: Backend) async throws {
        for _ in 0..<4 {
            let harness = try await Harness(backend)
            let user = try await harness.user()
            let (monthly, monthlyJWS) = try await harness.buy("com.tally.pro.monthly", for: user)
            _ = try await harness.storage.purchases.deliver(monthly, jws: monthlyJWS, presenter: user, orderID: nil)
            try await harness.store.refund(transactionID: monthly.payload.transactionID!)
            let (refund, refundJWS) = try #require(try await harness.notifications().last { $0.0.payload.notificationType == .refund })
            let (yearly, yearlyJWS) = try await harness.buy("com.tally.pro.yearly", for: user)
            // The refund takes "pro" away while a purchase of the other plan gives it back:
            // whichever commits first, the events must end where GET /v1/me does.
            async let refunded = harness.storage.notifications.apply(refund, jws: refundJWS)
            async let bought = harness.storage.purchases.deliver(yearly, jws: yearlyJWS, presenter: user, orderID: nil)
            _ = try await (refunded, bought)
            var active = Set<String>()
            for event in try await Self.events(harness, user: user) {
                if event.type == .entitlementGranted { active.formUnion(event.data.entitlements ?? []) }
                if event.type == .entitlementRemoved { active.subtract(event.data.entitlements ?? []) }
            }
            let account = try await harness.storage.users.account(user: user)
            #expect(active == Set(account.entitlements.filter(\.active).map(\.id)))
            #expect(active == ["pro"])
        }
    }

    @Test func theCounterPerTypeCountsCommittedEventsOnly() async throws {
        let harness = try await Harness(.sqlite)
        let metrics = Metrics()
        var storage = harness.storage
        storage.eventsCommitted = { types in for type in types { metrics.increment("tally_events_total", ["type": type.rawValue]) } }
        let user = try await storage.users.createUser(appUserID: nil, tokenHash: nil).0
        await #expect(throws: StorageError.self) {
            _ = try await storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 500, idempotencyKey: "k"))
        }
        _ = try await storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "k2"))
        #expect(metrics.value("tally_events_total", ["type": "credits.granted"]) == 1)
        #expect(metrics.value("tally_events_total", ["type": "credits.spent"]) == 1)
        #expect(metrics.exposition().contains("tally_events_total{type=\"credits.spent\"} 1"))
    }
}
