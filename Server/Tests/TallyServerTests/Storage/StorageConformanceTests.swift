import Foundation
import TallyCore
import TallySQL
import TallyServer
import TallyTesting
import TallyVerify
import Testing

/// One suite, every backend: what the storage promises, on SQLite and PostgreSQL alike.
@Suite struct StorageConformanceTests {
    @Test(arguments: Backend.available)
    func newUsersReceiveTheSignupGrant(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let (user, created, granted) = try await harness.storage.users.createUser(appUserID: nil, tokenHash: "t1")
        #expect(created)
        #expect(granted == [Amount(currency: "credits", amount: 2)])
        #expect(try await harness.balance(user, "credits").available == 2)
        #expect(try await harness.storage.users.user(tokenHash: "t1") == user)
        // The app's own id returns the same user, with another token, and no second grant.
        let (first, _, _) = try await harness.storage.users.createUser(appUserID: "app-42", tokenHash: "t2")
        let (again, createdAgain, grantedAgain) = try await harness.storage.users.createUser(appUserID: "app-42", tokenHash: "t3")
        #expect(again.id == first.id && !createdAgain && grantedAgain.isEmpty)
        #expect(try await harness.storage.users.user(tokenHash: "t3")?.id == first.id)
        #expect(try await harness.balance(first, "credits").available == 2)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aPurchaseGrantsOnceAndAReplayRepeatsTheFirstAnswer(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        let first = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(first.granted == [Amount(currency: "credits", amount: 50)])
        #expect(!first.replayed)
        #expect(first.balances.first { $0.currency == "credits" }?.available == 52)
        // A credit spent since: the replay repeats the first answer, not the account as it is now.
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "s"))
        let again = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(again.replayed)
        #expect(again.granted == first.granted)
        #expect(again.balances == first.balances)
        #expect(try await harness.balance(user, "credits").available == 51)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func quantityMultipliesTheGrant(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.zorya.report.career", for: user, quantity: 3)
        let response = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(response.granted == [Amount(currency: "report.career", amount: 3)])
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func adminPagesLoseNoRowReceivedInTheSameMillisecond(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        // The manual clock does not move: every purchase is received in the same millisecond.
        var expected = Set<String>()
        for _ in 0..<7 {
            let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
            expected.insert(try #require(verified.payload.transactionID))
        }
        var seen: [String] = []
        var cursor: AdminCursor?
        repeat {
            let page = try await harness.storage.admin.adminTransactions(AdminTransactionQuery(text: user.id, limit: 2, cursor: cursor))
            seen += page.transactions.map(\.transactionID)
            cursor = try page.nextCursor.map { try #require(AdminCursor(text: $0)) }
        } while cursor != nil
        #expect(seen.count == expected.count)
        #expect(Set(seen) == expected)
    }

    @Test(arguments: Backend.available)
    func theAdminListOfOneUsersTransactionsOfOneProductHasThoseAndOnlyThose(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let (user, other) = (try await harness.user(), try await harness.user())
        var expected = Set<String>()
        for (buyer, product) in [(user, "com.tally.photo.credits.10"), (user, "com.tally.photo.credits.50"), (other, "com.tally.photo.credits.10")] {
            for _ in 0..<3 {
                let (verified, jws) = try await harness.buy(product, for: buyer)
                _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: buyer, orderID: nil)
                if buyer.id == user.id, product.hasSuffix(".10") { expected.insert(try #require(verified.payload.transactionID)) }
            }
        }
        var seen: [String] = []
        var cursor: AdminCursor?
        var pages = 0
        repeat {
            let query = AdminTransactionQuery(userID: user.id, productID: "com.tally.photo.credits.10", limit: 2, cursor: cursor)
            let page = try await harness.storage.admin.adminTransactions(query)
            seen += page.transactions.map(\.transactionID)
            cursor = try page.nextCursor.map { try #require(AdminCursor(text: $0)) }
            pages += 1
        } while cursor != nil && pages < 5
        #expect(pages == 2)
        #expect(seen.count == 3)
        #expect(Set(seen) == expected)
    }

    @Test(arguments: Backend.available)
    func twentyConcurrentDeliveriesOfOneTransactionGrantOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.100", for: user)
        let storage = harness.storage
        let responses = try await withThrowingTaskGroup(of: PurchaseResponse.self) { group in
            for _ in 0..<20 { group.addTask { try await storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 20)
        #expect(responses.filter { !$0.replayed }.count == 1)
        #expect(try await harness.balance(user, "credits").available == 102)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aTransactionOfAnotherUserIsRefused(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let owner = try await harness.user()
        let thief = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: owner)
        await #expect(throws: StorageError.Code.transactionBelongsToAnotherUser) {
            do { _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: thief, orderID: nil) } catch let error as StorageError {
                throw error.code
            }
        }
        #expect(try await harness.balance(thief, "credits").available == 2)
        // The owner still gets it.
        #expect(try await harness.storage.purchases.deliver(verified, jws: jws, presenter: owner, orderID: nil).granted.count == 1)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aTransactionWithoutTokenBindsToItsFirstPresenter(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let first = try await harness.user()
        let second = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: nil)
        #expect(try await harness.storage.purchases.deliver(verified, jws: jws, presenter: first, orderID: nil).replayed == false)
        await #expect(throws: StorageError.Code.transactionBelongsToAnotherUser) {
            do { _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: second, orderID: nil) } catch let error as StorageError {
                throw error.code
            }
        }
        let page = try await harness.storage.admin.adminTransactions(AdminTransactionQuery(text: verified.payload.transactionID))
        #expect(page.transactions.first?.userID == first.id)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func spendingTakesTheOldestLotFirstAndRefusesWhatIsMissing(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        for product in ["com.tally.photo.credits.10", "com.tally.photo.credits.50"] {
            let (verified, jws) = try await harness.buy(product, for: user)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        }
        let spend = try await harness.storage.spending.spend(
            user: user, request: SpendRequest(currency: "credits", amount: 12, idempotencyKey: "k1", reference: "img-1"))
        #expect(spend.fromBalance == 12)
        #expect(spend.balance.available == 50)
        // The signup lot (2) and the 10-pack went first: only the 50-pack is left.
        let lots = try await harness.database.read { executor in
            try await executor.query("SELECT source, remaining FROM lots WHERE user_id = ? ORDER BY id", [.text(user.id)])
        }
        #expect(try lots.map { try $0.int(SQLColumn("remaining")) } == [0, 0, 50])
        await #expect(throws: StorageError.Code.insufficientCredits) {
            do {
                _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 51, idempotencyKey: "k2"))
            } catch let error
                as StorageError
            {
                #expect(error.available == 50)
                throw error.code
            }
        }
        #expect(try await harness.balance(user, "credits").available == 50)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func aRepeatedIdempotencyKeyReturnsTheFirstResult(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let request = SpendRequest(currency: "credits", amount: 1, idempotencyKey: "same", reference: "r")
        let storage = harness.storage
        let results = try await withThrowingTaskGroup(of: SpendResponse.self) { group in
            for _ in 0..<10 { group.addTask { try await storage.spending.spend(user: user, request: request) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { !$0.replayed }.count == 1)
        #expect(Set(results.map(\.spendID)).count == 1)
        #expect(try await harness.balance(user, "credits").available == 1)
        await #expect(throws: StorageError.Code.idempotencyKeyReused) {
            do { _ = try await storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 2, idempotencyKey: "same")) } catch let
                error
                as StorageError
            { throw error.code }
        }
        try await harness.checkInvariants()
    }

    /// Identical spends of the whole balance arriving together: one spends, every other one
    /// answers as its replay, none says `insufficient_credits` for a key that went through.
    @Test(arguments: Backend.available)
    func concurrentDuplicatesOfASpendOfEverythingAllAnswerTheOneSpend(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let storage = harness.storage
        // A few rounds: on PostgreSQL each one is a fresh chance for the duplicates to interleave.
        for round in 0..<4 {
            let user = try await harness.user()
            let request = SpendRequest(currency: "credits", amount: 2, idempotencyKey: "everything-\(round)", reference: "race")
            let outcomes = await concurrently(8) { try await storage.spending.spend(user: user, request: request) }
            let responses = outcomes.compactMap { try? $0.get() }
            #expect(responses.count == 8, "\(failures(outcomes))")
            #expect(Set(responses.map(\.spendID)).count == 1)
            #expect(responses.filter { !$0.replayed }.count == 1)
            #expect(try await harness.balance(user, "credits").available == 0)
            let spends = try await storage.users.ledger(user: user, currency: "credits", kind: "spend", limit: 50, cursor: nil).entries
            #expect(spends.map(\.amount) == [-2])
        }
        try await harness.checkInvariants()
    }

    /// The same for reservations: one holds the whole balance, the others replay that hold.
    @Test(arguments: Backend.available)
    func concurrentDuplicatesOfAReservationOfEverythingAllAnswerTheOneHold(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let storage = harness.storage
        for round in 0..<4 {
            let user = try await harness.user()
            let request = ReservationRequest(currency: "credits", amount: 2, ttlSeconds: 60, idempotencyKey: "everything-\(round)")
            let outcomes = await concurrently(8) { try await storage.spending.reserve(user: user, request: request) }
            let reservations = outcomes.compactMap { try? $0.get() }
            #expect(reservations.count == 8, "\(failures(outcomes))")
            #expect(Set(reservations.map(\.reservationID)).count == 1)
            #expect(reservations.filter { !$0.replayed }.count == 1)
            let balance = try await harness.balance(user, "credits")
            #expect(balance.available == 0 && balance.held == 2)
            let rows = try await harness.database.read { executor in
                try await executor.query("SELECT id FROM reservations WHERE user_id = ?", [.text(user.id)]).count
            }
            #expect(rows == 1)
        }
        try await harness.checkInvariants()
    }

    /// Different spends racing for one allowance: each reads the allowance after the user's
    /// lock, so together they never take more than it holds.
    @Test(arguments: Backend.available)
    func concurrentSpendsNeverTakeMoreThanTheAllowance(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (subscription, jws) = try await harness.buy("com.tally.pro.yearly", for: user)
        _ = try await harness.storage.purchases.deliver(subscription, jws: jws, presenter: user, orderID: nil)
        let storage = harness.storage
        let keys = Counter()
        let outcomes = await concurrently(8) {
            try await storage.spending.spend(user: user, request: SpendRequest(currency: "seconds", amount: 1000, idempotencyKey: "minute-\(keys.next())"))
        }
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 3, "\(failures(outcomes))")
        #expect(failures(outcomes).allSatisfy { $0.hasPrefix("insufficient_credits") }, "\(failures(outcomes))")
        let balance = try await harness.balance(user, "seconds")
        #expect(balance.allowance?.used == 3000)
        #expect(balance.available == 0 && balance.debt == 0)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func badSpendsChangeNothing(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let bad: [(SpendRequest, StorageError.Code)] = [
            (SpendRequest(currency: "credits", amount: 0, idempotencyKey: "a"), .invalidAmount),
            (SpendRequest(currency: "credits", amount: -5, idempotencyKey: "b"), .invalidAmount),
            (SpendRequest(currency: "credits", amount: Int64.max, idempotencyKey: "c"), .invalidAmount),
            (SpendRequest(currency: "gold", amount: 1, idempotencyKey: "d"), .unknownCurrency),
            (SpendRequest(currency: "credits", amount: 1, idempotencyKey: ""), .invalidIdempotencyKey),
            (SpendRequest(currency: "credits", amount: 1, idempotencyKey: String(repeating: "k", count: 129)), .invalidIdempotencyKey),
        ]
        for (request, code) in bad {
            await #expect(throws: code) {
                do { _ = try await harness.storage.spending.spend(user: user, request: request) } catch let error as StorageError { throw error.code }
            }
        }
        #expect(try await harness.balance(user, "credits").available == 2)
        #expect(try await harness.storage.users.ledger(user: user, currency: nil, kind: nil, limit: 50, cursor: nil).entries.count == 1)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func reservationsHoldCommitTheUsedPartAndReleaseTheRest(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.echo.3hours", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)

        let held = try await harness.storage.spending.reserve(
            user: user, request: ReservationRequest(currency: "seconds", amount: 600, ttlSeconds: 300, idempotencyKey: "rec-1"))
        #expect(held.status == .held)
        #expect(held.balance.available == 10_200)
        #expect(held.balance.held == 600)
        // Held seconds cannot be spent twice.
        await #expect(throws: StorageError.Code.insufficientCredits) {
            do {
                _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "seconds", amount: 10_201, idempotencyKey: "s"))
            } catch let
                error as StorageError
            { throw error.code }
        }
        let committed = try await harness.storage.spending.commit(user: user, reservationID: held.reservationID, used: 420)
        #expect(committed.status == .committed)
        #expect(committed.used == 420)
        #expect(committed.balance.available == 10_380)
        #expect(committed.balance.held == 0)
        // Committing again with the same amount repeats the answer; another amount is refused.
        #expect(try await harness.storage.spending.commit(user: user, reservationID: held.reservationID, used: 420).replayed)
        await #expect(throws: StorageError.Code.reservationClosed) {
            do { _ = try await harness.storage.spending.commit(user: user, reservationID: held.reservationID, used: 10) } catch let error as StorageError {
                throw error.code
            }
        }

        let second = try await harness.storage.spending.reserve(
            user: user, request: ReservationRequest(currency: "seconds", amount: 100, ttlSeconds: 60, idempotencyKey: "rec-2"))
        await #expect(throws: StorageError.Code.usedExceedsReservation) {
            do { _ = try await harness.storage.spending.commit(user: user, reservationID: second.reservationID, used: 101) } catch let error as StorageError {
                throw error.code
            }
        }
        #expect(try await harness.storage.spending.release(user: user, reservationID: second.reservationID).status == .released)
        #expect(try await harness.balance(user, "seconds").available == 10_380)
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func anExpiredReservationReleasesItself(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let held = try await harness.storage.spending.reserve(
            user: user, request: ReservationRequest(currency: "credits", amount: 2, ttlSeconds: 30, idempotencyKey: "r"))
        #expect(try await harness.balance(user, "credits").held == 2)
        try await harness.advance(by: .seconds(31))
        #expect(try await harness.storage.spending.expireReservations() == 1)
        #expect(try await harness.balance(user, "credits").available == 2)
        await #expect(throws: StorageError.Code.reservationClosed) {
            do { _ = try await harness.storage.spending.commit(user: user, reservationID: held.reservationID, used: 1) } catch let error as StorageError {
                throw error.code
            }
        }
        try await harness.checkInvariants()
    }

    @Test(arguments: Backend.available)
    func theSubscriptionAllowanceIsUsedFirstAndResetsEachMonth(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        try await harness.store.updateSettings { _ in }
        let (subscription, subscriptionJWS) = try await harness.buy("com.tally.pro.yearly", for: user)
        _ = try await harness.storage.purchases.deliver(subscription, jws: subscriptionJWS, presenter: user, orderID: nil)
        let (topUp, topUpJWS) = try await harness.buy("com.tally.echo.3hours", for: user)
        _ = try await harness.storage.purchases.deliver(topUp, jws: topUpJWS, presenter: user, orderID: nil)

        let before = try await harness.balance(user, "seconds")
        #expect(before.allowance?.granted == 3600)
        #expect(before.spendable == 3600 + 10_800)
        let spend = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "seconds", amount: 5000, idempotencyKey: "m1"))
        #expect(spend.fromAllowance == 3600)
        #expect(spend.fromBalance == 1400)
        #expect(spend.balance.available == 9400)
        #expect(spend.balance.allowance?.used == 3600)

        // A month later the allowance is whole again, and unused allowance never piles up.
        try await harness.advance(by: .seconds(31 * 86_400))
        let next = try await harness.balance(user, "seconds")
        #expect(next.allowance?.granted == 3600)
        #expect(next.allowance?.used == 0)
        #expect(next.spendable == 3600 + 9400)
        try await harness.advance(by: .seconds(62 * 86_400))
        #expect(try await harness.balance(user, "seconds").spendable == 3600 + 9400)
        try await harness.checkInvariants()
    }
}

extension StorageError.Code: Error {}
