import Foundation
import TallyCore
import TallySQL
import TallyServer
import TallyTesting
import TallyVerify
import Testing

/// Notifications, refunds and entitlements: applied once, in any order, on every backend.
@Suite struct NotificationConformanceTests {
    /// The store's notifications of a type, newest last.
    func notifications(_ harness: Harness, _ type: NotificationType) async throws -> [(VerifiedNotification, String)] {
        try await harness.notifications().filter { $0.0.payload.notificationType == type }
    }

    @Test(arguments: Backend.available)
    func aRefundTakesBackTheUnspentPartAndRecordsTheSpentPartAsDebt(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 7, idempotencyKey: "s1"))
        // Signup lot (2) went first, then 5 of the 10-pack: 5 of it are unspent.
        try await harness.store.refund(transactionID: verified.payload.transactionID!)
        let (refund, refundJWS) = try #require(try await notifications(harness, .refund).last)
        #expect(try await harness.storage.notifications.apply(refund, jws: refundJWS) == .applied)
        let after = try await harness.balance(user, "credits")
        #expect(after.available == 0)
        #expect(after.debt == 5)
        // The next grant repays the debt first.
        let (next, nextJWS) = try await harness.buy("com.tally.photo.credits.10", for: user)
        let response = try await harness.storage.purchases.deliver(next, jws: nextJWS, presenter: user, orderID: nil)
        #expect(response.balances.first { $0.currency == "credits" }?.available == 5)
        #expect(try await harness.balance(user, "credits").debt == 0)
        // Reversed: what was taken comes back.
        try await harness.store.reverseRefund(transactionID: verified.payload.transactionID!)
        let (reversal, reversalJWS) = try #require(try await notifications(harness, .refundReversed).last)
        #expect(try await harness.storage.notifications.apply(reversal, jws: reversalJWS) == .applied)
        #expect(try await harness.balance(user, "credits").available == 15)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func theSameNotificationTwiceAppliesOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        _ = try await harness.buy("com.tally.photo.credits.50", for: user)
        let (charge, jws) = try #require(try await notifications(harness, .oneTimeCharge).last)
        #expect(try await harness.storage.notifications.apply(charge, jws: jws) == .applied)
        #expect(try await harness.storage.notifications.apply(charge, jws: jws) == .duplicate)
        #expect(try await harness.balance(user, "credits").available == 52)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aNotificationOfAQuantityTheStoreNeverSellsIsRefusedAndCreditsNothing(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        _ = try await harness.buy("com.tally.photo.credits.50", for: user)
        let (charge, _) = try #require(try await notifications(harness, .oneTimeCharge).last)
        // 11 is one more than the App Store sells; the other would overflow product × quantity.
        for (index, quantity) in [11, Int.max / 2].enumerated() {
            var transaction = try #require(charge.transaction).payload
            transaction.transactionID = String(2_999_999_999_000_000 + index)
            transaction.originalTransactionID = transaction.transactionID
            transaction.quantity = quantity
            var payload = charge.payload
            payload.notificationUUID = UUID().uuidString.lowercased()
            payload.data?.signedTransactionInfo = try Harness.authority.sign(transaction)
            let jws = try Harness.authority.sign(payload)
            let forged = try await harness.verifier.verifyNotification(jws, includingSignedData: true).get()
            await #expect(throws: StorageError(.invalidRequest, "")) { try await harness.storage.notifications.apply(forged, jws: jws) }
        }
        #expect(try await harness.balance(user, "credits").available == 2)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aNotificationBeforeTheClientsPostGrantsOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        let (charge, chargeJWS) = try #require(try await notifications(harness, .oneTimeCharge).last)
        _ = try await harness.storage.notifications.apply(charge, jws: chargeJWS)
        let response = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(response.replayed)
        #expect(response.granted == [Amount(currency: "credits", amount: 50)])
        #expect(try await harness.balance(user, "credits").available == 52)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func theClientsPostAndTheNotificationRacingGrantOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.100", for: user)
        let (charge, chargeJWS) = try #require(try await notifications(harness, .oneTimeCharge).last)
        let storage = harness.storage
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        _ = try await storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
                    } else {
                        _ = try await storage.notifications.apply(charge, jws: chargeJWS)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await harness.balance(user, "credits").available == 102)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aNotificationWithoutAKnownUserIsGrantedWhenTheUserPresentsIt(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: nil)
        let (charge, chargeJWS) = try #require(try await notifications(harness, .oneTimeCharge).last)
        #expect(try await harness.storage.notifications.apply(charge, jws: chargeJWS) == .applied)
        #expect(try await harness.balance(user, "credits").available == 2)
        let response = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(!response.replayed)
        #expect(try await harness.balance(user, "credits").available == 12)
        try await harness.checkInvariants()
    }

    /// Refund and reversal applied in either order end the same: the later event wins.
    @Test(arguments: Backend.available)
    func refundAndReversalInEitherOrderEndTheSame(backend: Backend) async throws {
        var finals: [Int64] = []
        for reversed in [false, true] {
            let harness = try await Harness(backend)
            let user = try await harness.user()
            let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
            try await harness.store.refund(transactionID: verified.payload.transactionID!)
            try await harness.advance(by: .seconds(60))
            try await harness.store.reverseRefund(transactionID: verified.payload.transactionID!)
            var events = [try #require(try await notifications(harness, .refund).last), try #require(try await notifications(harness, .refundReversed).last)]
            if reversed { events.reverse() }
            for (notification, signed) in events { _ = try await harness.storage.notifications.apply(notification, jws: signed) }
            finals.append(try await harness.balance(user, "credits").available)
            try await harness.checkInvariants()
        }
        #expect(finals == [52, 52])
    }

    @Test(arguments: Backend.available)
    func aRefundSeenBeforeThePurchaseGrantsNothing(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        try await harness.store.refund(transactionID: verified.payload.transactionID!)
        let (refund, refundJWS) = try #require(try await notifications(harness, .refund).last)
        _ = try await harness.storage.notifications.apply(refund, jws: refundJWS)
        // The client, unaware, posts the original JWS: it is recognised, nothing is granted, and it can be finished.
        let response = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(response.granted.isEmpty)
        #expect(try await harness.balance(user, "credits").available == 2)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func subscriptionEntitlementsFollowRenewalsExpiryAndGrace(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        try await harness.store.updateSettings { $0.billingGracePeriodEnabled = true }
        let (verified, jws) = try await harness.buy("com.tally.pro.monthly", for: user)
        let purchase = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(purchase.entitlements.first { $0.id == "pro" }?.active == true)
        for (notification, signed) in try await harness.notifications() { _ = try await harness.storage.notifications.apply(notification, jws: signed) }
        #expect(try await harness.storage.users.account(user: user).subscriptions.first?.willRenew == true)

        // The trial renews into a paid month; the renewal arrives only as a notification.
        try await harness.advance(by: .seconds(8 * 86_400))
        for (notification, signed) in try await harness.notifications() { _ = try await harness.storage.notifications.apply(notification, jws: signed) }
        var account = try await harness.storage.users.account(user: user)
        #expect(account.entitlements.first { $0.id == "pro" }?.active == true)
        #expect(account.subscriptions.first?.status == .active)

        // The next renewal fails: grace keeps access, then it lapses.
        try await harness.store.failNextRenewal(originalTransactionID: verified.payload.originalTransactionID!)
        try await harness.advance(by: .seconds(31 * 86_400))
        for (notification, signed) in try await harness.notifications() { _ = try await harness.storage.notifications.apply(notification, jws: signed) }
        account = try await harness.storage.users.account(user: user)
        #expect(account.subscriptions.first?.status == .gracePeriod)
        #expect(account.entitlements.first { $0.id == "pro" }.map { $0.active && $0.inGracePeriod } == true)
        try await harness.advance(by: .seconds(17 * 86_400))
        for (notification, signed) in try await harness.notifications() { _ = try await harness.storage.notifications.apply(notification, jws: signed) }
        account = try await harness.storage.users.account(user: user)
        #expect(account.subscriptions.first?.status == .billingRetry)
        #expect(account.entitlements.first { $0.id == "pro" }?.active == false)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aRefundedNonConsumableLosesItsEntitlement(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.zorya.lifetime", for: user)
        let response = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(response.entitlements.map(\.id) == ["zorya.lifetime"])
        try await harness.store.refund(transactionID: verified.payload.transactionID!)
        let (refund, refundJWS) = try #require(try await notifications(harness, .refund).last)
        _ = try await harness.storage.notifications.apply(refund, jws: refundJWS)
        #expect(try await harness.storage.users.account(user: user).entitlements.isEmpty)
    }

    @Test(arguments: Backend.available)
    func aConsumptionRequestIsRecordedWithTheConsumption(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 4, idempotencyKey: "c"))
        try await harness.store.requestConsumptionInformation(transactionID: verified.payload.transactionID!)
        let (request, requestJWS) = try #require(try await notifications(harness, .consumptionRequest).last)
        #expect(try await harness.storage.notifications.apply(request, jws: requestJWS) == .applied)
        let json = try await harness.database.read { executor in
            try await executor.query("SELECT consumption_json FROM consumption_requests", []).first?.text(SQLColumn("consumption_json"))
        }
        let body = try AppStoreJSON.decoder().decode(ConsumptionRequest.self, from: Data(try #require(json).utf8))
        #expect(body.consumptionStatus?.rawValue == 2)  // partially consumed: 2 of the 10 went (signup credits first)
        #expect(body.deliveryStatus?.rawValue == 0)
        #expect(body.appAccountToken == user.appAccountToken.uuidString.lowercased())
    }

    @Test(arguments: Backend.available)
    func ordersAreFulfilledByTheirPurchaseAndCanFailOrExpire(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let order = try await harness.storage.purchases.createOrder(user: user, productID: "com.tally.photo.credits.10")
        #expect(order.status == .created)
        #expect(order.appAccountToken == user.appAccountToken)
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: order.orderID)
        let fulfilled = try await harness.storage.purchases.order(user: user, id: order.orderID)
        #expect(fulfilled.status == .fulfilled)
        #expect(fulfilled.transactionID == verified.payload.transactionID)

        let other = try await harness.storage.purchases.createOrder(user: user, productID: "com.tally.photo.credits.50")
        let (wrong, wrongJWS) = try await harness.buy("com.tally.photo.credits.10", for: user)
        await #expect(throws: StorageError.Code.orderMismatch) {
            do { _ = try await harness.storage.purchases.deliver(wrong, jws: wrongJWS, presenter: user, orderID: other.orderID) } catch let error
                as StorageError
            {
                throw error.code
            }
        }
        // The mismatch changed nothing: the purchase can still be delivered without the order.
        #expect(try await harness.storage.purchases.deliver(wrong, jws: wrongJWS, presenter: user, orderID: nil).replayed == false)
        #expect(try await harness.storage.purchases.failOrder(user: user, id: other.orderID, reason: "cancelled").status == .failed)

        let stale = try await harness.storage.purchases.createOrder(user: user, productID: "com.tally.echo.3hours")
        try await harness.advance(by: .seconds(86_401))
        #expect(try await harness.storage.purchases.order(user: user, id: stale.orderID).status == .expired)
        let stranger = try await harness.user()
        await #expect(throws: StorageError.Code.notFound) {
            do { _ = try await harness.storage.purchases.order(user: stranger, id: order.orderID) } catch let error as StorageError { throw error.code }
        }
    }

    @Test(arguments: Backend.available)
    func ledgerPagesAreStableNewestFirst(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        for index in 0..<2 {
            _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "p\(index)"))
        }
        let first = try await harness.storage.users.ledger(user: user, currency: "credits", kind: nil, limit: 2, cursor: nil)
        #expect(first.entries.map(\.kind) == [.spend, .spend])
        let cursor = try #require(first.nextCursor.flatMap(Int64.init))
        // New entries after the first page do not shift the second.
        let second = try await harness.storage.users.ledger(user: user, currency: "credits", kind: nil, limit: 2, cursor: cursor)
        #expect(second.entries.map(\.kind) == [.signup])
        #expect(second.nextCursor == nil)
        let onlySignup = try await harness.storage.users.ledger(user: user, currency: nil, kind: "signup", limit: 10, cursor: nil)
        #expect(onlySignup.entries.count == 1)
    }

    /// One user's ledger goes newest first by id, the order it was written, in the API and in
    /// the console alike, even where the entries' times say otherwise (a clock stepped back),
    /// and the console's pages of it lose and repeat nothing.
    @Test(arguments: Backend.available)
    func oneUsersLedgerGoesInTheOrderItWasWrittenWhateverItsTimes(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        _ = try await harness.database.write { executor in
            for step in Int64(0)..<5 {
                _ = try await executor.execute(
                    """
                    INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, created_at)
                    VALUES (\(user.id), 'credits', 'balance', 'adjustment', 1, \(1_000 - step))
                    """)
            }
        }
        var listed: [Int64] = []
        var before: ConsoleLedgerQuery.Position?
        repeat {
            let page = try await harness.storage.console.ledgerEntries(ConsoleLedgerQuery(kind: "adjustment", userID: user.id, limit: 2, before: before))
            listed += page.rows.map(\.entry.id)
            before = page.next
        } while before != nil
        let written = try await harness.storage.users.ledger(user: user, currency: nil, kind: "adjustment", limit: 10, cursor: nil).entries.map(\.id)
        #expect(written.count == 5 && Set(written).count == 5 && written == written.sorted(by: >), "\(written)")
        #expect(listed == written)
    }

    @Test(arguments: Backend.available)
    func adminAdjustmentsAreIdempotentAndANegativeOneCanLeaveDebt(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let plus = try await harness.storage.admin.adjust(
            userID: user.id, amount: Amount(currency: "credits", amount: 5), reason: "support", idempotencyKey: "a1")
        #expect(plus.balance.available == 7)
        #expect(
            try await harness.storage.admin.adjust(userID: user.id, amount: Amount(currency: "credits", amount: 5), reason: "support", idempotencyKey: "a1")
                .replayed)
        let minus = try await harness.storage.admin.adjust(
            userID: user.id, amount: Amount(currency: "credits", amount: -10), reason: "chargeback", idempotencyKey: "a2")
        #expect(minus.balance.available == 0)
        #expect(minus.balance.debt == 3)
        await #expect(throws: StorageError.Code.notFound) {
            do {
                _ = try await harness.storage.admin.adjust(userID: "nobody", amount: Amount(currency: "credits", amount: 1), reason: "x", idempotencyKey: "a3")
            } catch let error as StorageError { throw error.code }
        }
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func theLedgerIsAppendOnlyInTheDatabaseItself(backend: Backend) async throws {
        let harness = try await Harness(backend)
        _ = try await harness.user()
        await #expect(throws: SQLDatabaseError.self) {
            try await harness.database.write { executor in try await executor.execute("UPDATE ledger_entries SET amount = 1000", []) }
        }
        await #expect(throws: SQLDatabaseError.self) {
            try await harness.database.write { executor in try await executor.execute("DELETE FROM ledger_entries", []) }
        }
        await #expect(throws: SQLDatabaseError.self) {
            try await harness.database.write { executor in try await executor.execute("UPDATE positions SET available = -1", []) }
        }
    }
}
