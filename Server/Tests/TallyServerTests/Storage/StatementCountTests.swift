import Foundation
import TallyCore
import TallySQL
import TallyVerify
import Testing

@testable import TallyServer

/// How many statements the hot writes take, pinned: a purchase, a spend, a reservation's
/// commit and a refund. A change that adds a round trip to one of them fails here, and says
/// which statements it ran.
@Suite struct StatementCountTests {
    @Test(arguments: Backend.available)
    func theHotWritesTakeAKnownNumberOfStatements(backend: Backend) async throws {
        let database = StatementCounter(try await backend.makeDatabase())
        let harness = try await Harness(backend, database: database)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)

        let purchase = try await database.statements {
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        }
        // The sign-up grant's lot (2) is the oldest: 1 fits in it, then 3 spans it and the pack's.
        let spend = try await database.statements {
            _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "s1"))
        }
        let spanning = try await database.statements {
            _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 3, idempotencyKey: "s2"))
        }
        let held = try await harness.storage.spending.reserve(
            user: user, request: ReservationRequest(currency: "credits", amount: 2, ttlSeconds: 60, idempotencyKey: "r1"))
        let commit = try await database.statements {
            _ = try await harness.storage.spending.commit(user: user, reservationID: held.reservationID, used: 1)
        }
        try await harness.store.refund(transactionID: verified.payload.transactionID!)
        let (refund, refundJWS) = try #require(try await harness.notifications().last { $0.0.payload.notificationType == .refund })
        let refunded = try await database.statements {
            let outcome = try await harness.storage.notifications.apply(refund, jws: refundJWS)
            #expect(outcome == .applied)
        }

        // Each write ends with one statement for the metrics' rollups (on SQLite one for all the
        // writes of a group commit: these run one at a time); a refund also reads its
        // purchase's transactions before and after (docs/metrics.md, "How the figures are kept").
        // A write's events are inserted in one statement at its end (the database makes their
        // deliveries, a trigger): on PostgreSQL, where each statement is a round trip, in the
        // rollups' statement. A spend that fits in the oldest open lot takes from it in one
        // statement; one that does not tries that, then reads the open lots and takes from
        // each. A spend's key is written last, with its answer, in one statement. A purchase
        // starts with one read of the transaction and of its app account token's user, and
        // answers with the account: on PostgreSQL read in one statement
        // (``Accounts/accountStatement(user:time:allowanceProducts:)``). A purchase that gives
        // no access (these credits) writes its row once, after its credit and that answer.
        let postgres = backend == .postgres
        #expect(purchase.count == (postgres ? 8 : 13), "\(purchase)")
        #expect(spend.count == (postgres ? 7 : 8), "\(spend)")
        #expect(spanning.count == (postgres ? 10 : 11), "\(spanning)")
        #expect(commit.count == (postgres ? 9 : 10), "\(commit)")
        #expect(refunded.count == (postgres ? 16 : 17), "\(refunded)")
        try await harness.checkInvariants()
    }
}
