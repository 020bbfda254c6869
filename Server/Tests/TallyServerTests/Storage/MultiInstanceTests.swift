import Foundation
import TallyCore
import TallyServer
import TallyVerify
import Testing

/// Two server instances on one PostgreSQL database, as behind a load balancer: each has its own
/// connection pool, and only the database's constraints and locks stand between them.
@Suite struct MultiInstanceTests {
    static let postgres = ProcessInfo.processInfo.environment["TALLY_TEST_POSTGRES_URL"] != nil

    @Test(.enabled(if: postgres, "TALLY_TEST_POSTGRES_URL is not set: two instances need a PostgreSQL server (scripts/test.sh starts one)"))
    func twoInstancesCreditEachPurchaseOnceAndSpendEachKeyOnce() async throws {
        // Both instances start together and migrate the same fresh schema.
        let configuration = try await TestPostgres.makeSchema()
        let first = PostgresDatabase(configuration: configuration)
        let second = PostgresDatabase(configuration: configuration)
        async let firstMigrated: Void = first.migrate(Migrations.all)
        async let secondMigrated: Void = second.migrate(Migrations.all)
        _ = try await (firstMigrated, secondMigrated)

        let harness = try await Harness(.postgres, database: first)
        let clock = harness.clock
        let instances = [harness.storage, SQLStorage(database: second, catalog: Harness.catalog, now: { clock.now })]

        var users: [User] = []
        for _ in 0..<4 { users.append(try await harness.user()) }
        var purchases: [(user: User, verified: Verified<TransactionPayload>, jws: String)] = []
        for user in users {
            for product in ["com.tally.photo.credits.10", "com.tally.photo.credits.50", "com.tally.photo.credits.100"] {
                let (verified, jws) = try await harness.buy(product, for: user)
                purchases.append((user, verified, jws))
            }
        }
        let charges = try await harness.notifications().filter { $0.0.payload.notificationType == .oneTimeCharge }
        #expect(charges.count == purchases.count)

        // Every transaction posted three times through each instance, and its notification
        // delivered to both, all at once.
        let deliveries = await withTaskGroup(of: (String, Result<PurchaseResponse, any Error>)?.self) { group in
            for (user, verified, jws) in purchases {
                for storage in instances {
                    for _ in 0..<3 {
                        group.addTask {
                            do {
                                return (
                                    verified.payload.transactionID!,
                                    .success(try await storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil))
                                )
                            } catch {
                                return (verified.payload.transactionID!, .failure(error))
                            }
                        }
                    }
                }
            }
            for (notification, jws) in charges {
                for storage in instances {
                    group.addTask {
                        _ = try? await storage.notifications.apply(notification, jws: jws)
                        return nil
                    }
                }
            }
            return await group.reduce(into: [(String, Result<PurchaseResponse, any Error>)]()) { if let item = $1 { $0.append(item) } }
        }
        #expect(failures(deliveries.map(\.1)).isEmpty, "\(failures(deliveries.map(\.1)))")
        for (user, verified, _) in purchases {
            let id = verified.payload.transactionID!
            let responses = deliveries.filter { $0.0 == id }.compactMap { try? $0.1.get() }
            let grant = try #require(Harness.catalog.product(verified.payload.productID!)?.grants.first)
            #expect(responses.count == 6)
            #expect(responses.allSatisfy { $0.granted == [Amount(currency: "credits", amount: grant.amount)] })
            // The notification may have granted it first; then every post is a replay.
            #expect(responses.filter { !$0.replayed }.count <= 1)
            let entries = try await harness.storage.users.ledger(user: user, currency: "credits", kind: "purchase", limit: 50, cursor: nil).entries
            #expect(entries.filter { $0.transactionID == id }.map(\.amount) == [grant.amount])
        }
        for user in users {
            #expect(try await harness.balance(user, "credits").available == 2 + 10 + 50 + 100)
        }
        try await harness.checkInvariants()

        // Each user's spends, each key posted four times through each instance at once: together
        // they take the whole balance, so every key must succeed whatever order they run in.
        let amounts: [(key: String, amount: Int64)] = [("one", 1), ("two", 2), ("three", 3), ("rest", 162 - 6)]
        let spends = await withTaskGroup(of: (String, String, Result<SpendResponse, any Error>).self) { group in
            for user in users {
                for (key, amount) in amounts {
                    for storage in instances {
                        for _ in 0..<4 {
                            group.addTask {
                                let request = SpendRequest(currency: "credits", amount: amount, idempotencyKey: key, reference: key)
                                do {
                                    return (user.id, key, .success(try await storage.spending.spend(user: user, request: request)))
                                } catch {
                                    return (user.id, key, .failure(error))
                                }
                            }
                        }
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(failures(spends.map(\.2)).isEmpty, "\(failures(spends.map(\.2)))")
        for user in users {
            for (key, amount) in amounts {
                let responses = spends.filter { $0.0 == user.id && $0.1 == key }.compactMap { try? $0.2.get() }
                #expect(responses.count == 8)
                #expect(Set(responses.map(\.spendID)).count == 1)
                #expect(responses.filter { !$0.replayed }.count == 1)
                #expect(responses.allSatisfy { $0.amount == amount })
            }
            let balance = try await harness.balance(user, "credits")
            #expect(balance.available == 0 && balance.held == 0 && balance.debt == 0)
            let entries = try await instances[1].users.ledger(user: user, currency: "credits", kind: "spend", limit: 50, cursor: nil).entries
            #expect(entries.map(\.amount).sorted() == amounts.map { -$0.amount }.sorted())
        }
        try await harness.checkInvariants()
        await first.close()
        await second.close()
    }
}
