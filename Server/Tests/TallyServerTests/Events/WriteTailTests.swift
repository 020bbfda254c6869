import Foundation
import TallyCore
import TallySQL
import TallyTesting
import TallyVerify
import Testing

@testable import TallyServer

/// Writes that commit together end together (``WriteTail``): on SQLite one insert of their
/// events and one upsert of their rollups per group commit. Many purchases and spends at once
/// still leave every event, in each user's order, and rollups equal to what the stored rows
/// sum to.
@Suite struct WriteTailTests {
    @Test(arguments: Backend.available)
    func manyWritesAtOnceLeaveEveryEventAndExactRollups(backend: Backend) async throws {
        let harness = try await Harness(backend)
        var users: [User] = []
        for _ in 0..<8 { users.append(try await harness.user()) }
        var purchases: [(User, Verified<TransactionPayload>, String)] = []
        for user in users {
            for _ in 0..<3 {
                let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
                purchases.append((user, verified, jws))
            }
        }
        let storage = harness.storage
        let bought = await withTaskGroup(of: Result<PurchaseResponse, any Error>.self) { group in
            for (user, verified, jws) in purchases {
                group.addTask {
                    do { return .success(try await storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)) } catch {
                        return .failure(error)
                    }
                }
            }
            // Spends beside the purchases, each from the sign-up grant; one more than a user has
            // is refused and leaves nothing.
            for (index, user) in users.enumerated() {
                group.addTask {
                    do {
                        let request = SpendRequest(currency: "credits", amount: index == 0 ? 1_000 : 1, idempotencyKey: "s-\(index)")
                        _ = try await storage.spending.spend(user: user, request: request)
                        return .failure(TestFailure("not a purchase"))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: [Result<PurchaseResponse, any Error>]()) { $0.append($1) }
        }
        #expect(bought.filter { if case .success = $0 { true } else { false } }.count == purchases.count, "\(failures(bought))")

        let events = try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: nil, limit: 1000).events
        #expect(events.filter { $0.type == .purchaseGranted }.count == purchases.count)
        #expect(events.filter { $0.type == .creditsSpent }.count == users.count - 1)
        // Each event once: a purchase's for its transaction.
        #expect(Set(events.map(\.id)).count == events.count)
        let granted = events.filter { $0.type == .purchaseGranted }.compactMap(\.data.transactionID)
        #expect(granted.sorted() == purchases.compactMap(\.1.payload.transactionID).sorted())
        for user in users {
            let own = events.filter { $0.data.userID == user.id }.map(\.type)
            #expect(own.first == .creditsGranted, "\(own)")
            #expect(own.filter { $0 == .purchaseGranted }.count == 3)
        }
        // The rollups hold what the stored transactions and ledger sum to (the audit compares
        // them with a computation from scratch): 24 purchases of the day, once each.
        try await harness.checkInvariants()
        let purchased = try await harness.database.read { executor in
            try await executor.query("SELECT SUM(value) AS n FROM metric_days WHERE figure = 'purchases'").first?.int(SQLColumn("n"))
        }
        #expect(purchased == Int64(purchases.count))
    }
}
