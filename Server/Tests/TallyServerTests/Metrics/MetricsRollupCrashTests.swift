import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import Testing

@testable import TallyServer

/// The rollups are kept in the transaction of each write: a write cut off at any statement
/// changes no figure, and what the completed writes leave is what a rebuild from the
/// transactions and the ledger computes.
@Suite struct MetricsRollupCrashTests {
    typealias World = MetricsWorld

    @Test(arguments: Backend.available)
    func aWriteCutOffAtAnyStatementChangesNoFigureAndTheRollupsEqualARebuild(backend: Backend) async throws {
        let database = CutOffDatabase(try await backend.makeDatabase())
        let world = try await World(backend, database: database)
        /// Every figure of March and April, as the report reads them now.
        @Sendable func figures() async throws -> MetricsReport {
            try await world.storage.metrics.report(MetricsQuery(from: World.day("2026-03-01"), through: World.day("2026-04-30")))
        }
        let longestCut = Highest()
        /// Runs `write` cut off at its 1st statement, then its 2nd, … until it runs whole;
        /// after each cut, no figure has changed.
        @Sendable func cutEverywhere(_ label: String, _ write: @Sendable () async throws -> Void) async throws {
            var statement = 1
            while true {
                let before = try await figures()
                database.cutNextWrite(atStatement: statement)
                do {
                    try await write()
                    if !database.lastWriteWasCut { return }
                    Issue.record("\(label): cut at statement \(statement), yet it succeeded")
                    return
                } catch {
                    guard database.lastWriteWasCut else { throw error }
                    #expect(try await figures() == before, "\(label), cut at statement \(statement)")
                    longestCut.note(statement)
                    statement += 1
                }
            }
        }
        world.apply = { notification, jws in
            try await cutEverywhere(notification.payload.notificationType?.rawValue ?? "notification") {
                _ = try await world.storage.notifications.apply(notification, jws: jws)
            }
        }

        let converts = try await world.customer()
        let refunded = try await world.customer()
        let buyer = try await world.customer(withUser: true)
        let user = try #require(buyer.user)
        try await world.advance(to: "2026-03-01T10:00:00Z")
        try await world.buy(converts, World.monthly)  // free week, then 9_990 from 03-08T10:00
        let premium = try await world.buy(refunded, World.premium)  // 14_990, 03-01T10:00 → 04-01T10:00
        try await world.buy(buyer, World.credits50)  // 7_990, +50
        try await world.advance(to: "2026-03-02T10:00:00Z")
        try await cutEverywhere("spend") {
            _ = try await world.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 20, idempotencyKey: "s1"))
        }
        try await world.advance(to: "2026-03-03T10:00:00Z")
        let ten = try await world.buy(buyer, World.credits10)  // 1_990, +10
        try await world.advance(to: "2026-03-04T10:00:00Z")
        try await world.refund(buyer, ten)
        try await world.advance(to: "2026-03-06T10:00:00Z")
        try await world.reverseRefund(buyer, ten)
        try await world.advance(to: "2026-03-15T10:00:00Z")
        try await world.buy(converts, World.premium)  // upgrade: 14_990 from 03-15T10:00
        try await world.advance(to: "2026-03-20T10:00:00Z")
        try await world.refund(refunded, premium)
        try await world.advance(to: "2026-04-10T12:00:00Z")  // the upgraded plan renews 04-15

        // Writes were cut mid-way, not only at their first statement.
        #expect(longestCut.value > 3)
        let kept = try await figures()
        // What the completed writes left is not nothing: the upgraded plan's 14_990 a month, 60
        // credits sold, 20 spent, 2 + 50 + 10 − 20 = 42 held.
        #expect(kept.mrr("USD").milliunits == 14_990)
        #expect(kept.credits("credits").sold == 60)
        #expect(kept.credits("credits").spent == 20)
        #expect(kept.credits("credits").outstanding == 42)
        #expect(kept.revenue("2026-03-20").refunds == 1)

        // The check `tally db check` runs finds no rollup differing from its recomputation.
        let audit = try await DatabaseAudit.run(on: database)
        #expect(audit.rollupDifferences.isEmpty, "\(audit.rollupDifferences)")
        try await MetricsRollup.rebuild(database)
        let rebuilt = try await figures()
        #expect(rebuilt.days == kept.days)
        #expect(rebuilt.revenue == kept.revenue)
        #expect(rebuilt.mrr == kept.mrr)
        #expect(rebuilt.trialCohorts == kept.trialCohorts)
        #expect(rebuilt.retention == kept.retention)
        #expect(rebuilt.credits == kept.credits)
    }
}

/// The highest number noted.
private final class Highest: @unchecked Sendable {
    private let lock = NSLock()
    private var highest = 0
    var value: Int { lock.withLock { highest } }
    func note(_ number: Int) { lock.withLock { highest = max(highest, number) } }
}
