import Foundation
import TallyCore
import TallySQL
import TallyTestSupport
import TallyTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tally backup`, `tally restore` and `tally check` as an operator runs them: against a
/// `tally serve` busy with purchases and spends from concurrent clients.
@Suite(.serialized) struct BackupCommandTests {
    let folder: URL

    init() throws {
        folder = try TemporaryFolder().url
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The example catalog with its request limits raised: the load comes from one address.
    func catalog() throws -> String {
        let example = CommandLine.repository.appendingPathComponent("Examples/tally.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: example)) as? [String: Any])
        var limits = json["limits"] as? [String: Any] ?? [:]
        limits["user_requests_per_minute"] = 10_000_000
        limits["ip_requests_per_minute"] = 10_000_000
        json["limits"] = limits
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path("tally.json")))
        return path("tally.json")
    }

    /// Runs the command (on a thread of its own, so the load's tasks keep the cooperative pool).
    static func run(_ arguments: [String]) async throws -> (CommandLine.Run, [String: Any]) {
        let run = try await CommandLine.run(arguments)
        return (run, CommandLine.json(run.stdout))
    }

    /// What the concurrent clients did.
    final class Load: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private(set) var purchases = 0
        private(set) var spends = 0
        private(set) var failures: [String] = []
        private var answered: [Date] = []

        var isStopped: Bool { lock.withLock { stopped } }
        func stop() { lock.withLock { stopped = true } }
        var purchaseCount: Int { lock.withLock { purchases } }
        var failureList: [String] { lock.withLock { failures } }
        func answers(between start: Date, and end: Date) -> Int { lock.withLock { answered.filter { $0 > start && $0 < end }.count } }

        func record(_ what: String, status: Int, expected: Int, body: [String: Any]) {
            lock.withLock {
                answered.append(Date())
                if status != expected { failures.append("\(what): \(status) \(body)") } else if what == "purchase" { purchases += 1 } else { spends += 1 }
            }
        }

        func fail(_ message: String) { lock.withLock { failures.append(message) } }
    }

    struct Customer: Sendable {
        var userID: String
        var token: String
        var accountToken: String
    }

    /// Ledger rows of an SQLite file, in commit order.
    static func ledger(_ path: String) throws -> [[SQLValue]] {
        let columns = ["id", "user_id", "currency", "bucket", "kind", "amount", "transaction_id", "reference"]
        return try SQLiteConnection(path: path, readOnly: true)
            .query("SELECT \(columns.joined(separator: ", ")) FROM ledger_entries ORDER BY id")
            .map { row in columns.map { row.values[$0] ?? .null } }
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw ServeCommandTests.CommandFailure(description: "the load made no progress") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func aBackupTakenUnderLoadAddsUpAndRestoresToTheSameBalances() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let caFolder = folder.appendingPathComponent("ca")
        let authority = try TestCertificateAuthority.openOrCreate(folder: caFolder, now: Date())
        let live = path("live.sqlite")
        let serve = ["serve", "--dev", "--trust-ca-dir", caFolder.path, "--config", try catalog()]
        let (server, port) = try ServeCommandTests.serve(serve + ["--database", live])
        defer { if server.isRunning { server.terminate() } }
        let base = "http://127.0.0.1:\(port)"

        var registered: [Customer] = []
        for _ in 0..<6 {
            let (status, body) = try await ServeCommandTests.request("POST", base + "/v1/users")
            #expect(status == 201)
            registered.append(
                Customer(
                    userID: try #require(body["user_id"] as? String), token: try #require(body["user_token"] as? String),
                    accountToken: try #require(body["app_account_token"] as? String)))
        }
        let customers = registered

        // Each customer buys 10 credits and spends 3, again and again, until told to stop.
        let load = Load()
        let clients = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, customer) in customers.enumerated() {
                    group.addTask {
                        var number = 0
                        while !load.isStopped {
                            number += 1
                            do {
                                var payload = TransactionPayload()
                                payload.transactionID = String(3_000_000_000_000_000 + index * 1_000_000 + number)
                                payload.originalTransactionID = payload.transactionID
                                payload.bundleID = "com.tally.example"
                                payload.productID = "com.tally.photo.credits.10"
                                payload.type = .consumable
                                payload.quantity = 1
                                payload.environment = .sandbox
                                payload.inAppOwnershipType = .purchased
                                payload.transactionReason = .purchase
                                payload.purchaseDate = Date()
                                payload.originalPurchaseDate = payload.purchaseDate
                                payload.signedDate = payload.purchaseDate
                                payload.appAccountToken = customer.accountToken
                                let jws = try authority.sign(payload)
                                let (bought, receipt) = try await ServeCommandTests.request(
                                    "POST", base + "/v1/me/purchases", token: customer.token, body: "{\"signed_transaction\":\"\(jws)\"}")
                                load.record("purchase", status: bought, expected: 200, body: receipt)
                                let (spent, answer) = try await ServeCommandTests.request(
                                    "POST", base + "/v1/me/spend", token: customer.token,
                                    body: "{\"currency\":\"credits\",\"amount\":3,\"idempotency_key\":\"\(UUID().uuidString)\"}")
                                load.record("spend", status: spent, expected: 200, body: answer)
                            } catch {
                                load.fail("customer \(index): \(error)")
                            }
                        }
                    }
                }
            }
        }
        defer { load.stop() }

        try await Self.waitUntil { load.purchaseCount >= 30 }
        let started = Date()
        let (backup, report) = try await Self.run(["backup", "--database", live, "--to", path("backup.sqlite")])
        let ended = Date()
        let purchasesAtBackup = load.purchaseCount
        // The load goes on after the backup, then stops.
        try await Self.waitUntil { load.purchaseCount >= purchasesAtBackup + 30 }
        load.stop()
        await clients.value

        #expect(load.failureList.isEmpty, "\(load.failureList.prefix(5))")
        #expect(backup.status == 0, "\(backup.stdout) \(backup.stderr)")
        #expect(report["status"] as? String == "ok")
        // The server kept answering while the backup ran.
        #expect(load.answers(between: started, and: ended) > 0)

        // The copy opens and passes SQLite's own check.
        let copy = try SQLiteConnection(path: path("backup.sqlite"), readOnly: true)
        #expect(try copy.query("PRAGMA integrity_check").first?.optionalText(SQLColumn("integrity_check")) == "ok")
        // Its balances equal its ledger sums, position by position.
        let positions = try copy.query("SELECT user_id, currency, available, held, debt FROM positions")
        #expect(positions.count >= customers.count)
        for position in positions {
            let sum = try copy.query(
                "SELECT COALESCE(SUM(amount), 0) AS total FROM ledger_entries WHERE user_id = ? AND currency = ? AND bucket = 'balance'",
                [.optional(position.optionalText(SQLColumn("user_id"))), .optional(position.optionalText(SQLColumn("currency")))]
            ).first?.optionalInt(SQLColumn("total"))
            let net =
                (try position.optionalInt(SQLColumn("available")) ?? 0) + (try position.optionalInt(SQLColumn("held")) ?? 0)
                - (try position.optionalInt(SQLColumn("debt")) ?? 0)
            #expect(sum == net, "\(position.values)")
        }
        // Every recorded purchase brought its credit along: whole transactions, nothing half.
        let orphans = try copy.query(
            """
            SELECT COUNT(*) AS n FROM store_transactions s
            WHERE s.granted = 1 AND NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.transaction_id = s.transaction_id)
            """
        ).first?.optionalInt(SQLColumn("n"))
        #expect(orphans == 0)
        // It is the database as it was at one instant of the load: its ledger is the start of the final one.
        let copied = try Self.ledger(path("backup.sqlite"))
        let final = try Self.ledger(live)
        #expect(copied.count > customers.count * 2 + 30 && copied.count < final.count, "\(copied.count) of \(final.count)")
        #expect(Array(final.prefix(copied.count)) == copied)
        let audit = try #require(report["audit"] as? [String: Any])
        #expect(audit["mismatch_count"] as? Int == 0)
        #expect(audit["ledger_entries"] as? Int == copied.count)

        // No restore over a database a server has open.
        let (refused, refusal) = try await Self.run(["restore", "--from", path("backup.sqlite"), "--database", live, "--force"])
        #expect(refused.status == 1)
        #expect(refusal["code"] as? String == "database_in_use", "\(refused.stdout)")
        #expect(try Self.ledger(live) == final)

        // Stopped, the server's database is replaced by the backup and kept aside.
        server.terminate()
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
        let (restored, restoreReport) = try await Self.run(["restore", "--from", path("backup.sqlite"), "--database", live, "--force"])
        #expect(restored.status == 0, "\(restored.stdout) \(restored.stderr)")
        let replaced = try #require(restoreReport["replaced"] as? String)
        #expect(try Self.ledger(replaced) == final)
        #expect(try Self.ledger(live) == copied)

        // A server on the restored database answers the balances of the backup.
        let (again, newPort) = try ServeCommandTests.serve(serve + ["--database", live])
        defer { again.terminate() }
        for customer in customers {
            let (status, me) = try await ServeCommandTests.request("GET", "http://127.0.0.1:\(newPort)/v1/me", token: customer.token)
            #expect(status == 200)
            let credits = (me["balances"] as? [[String: Any]])?.first { $0["currency"] as? String == "credits" }
            let expected = try copy.query("SELECT available FROM positions WHERE user_id = ? AND currency = 'credits'", [.text(customer.userID)])
                .first?.optionalInt(SQLColumn("available"))
            #expect((credits?["available"] as? Int).map(Int64.init) == expected, "\(me)")
        }
        let (checked, checkReport) = try await Self.run(["check", "--database", live])
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect((checkReport["audit"] as? [String: Any])?["ledger_entries"] as? Int == copied.count)
    }

    @Test func refusalsSayWhyAndChangeNothing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // PostgreSQL has its own tools.
        let postgres = try await CommandLine.run(["backup", "--database", "postgres://tally@127.0.0.1/tally", "--to", path("b.sqlite")])
        #expect(postgres.status == 2)
        #expect(postgres.stderr.contains("pg_dump"), "\(postgres.stderr)")
        let postgresRestore = try await CommandLine.run(["restore", "--database", "postgresql://tally@127.0.0.1/tally", "--from", path("b.sqlite")])
        #expect(postgresRestore.status == 2)
        #expect(postgresRestore.stderr.contains("pg_restore"), "\(postgresRestore.stderr)")

        // No database to copy.
        let missing = try await CommandLine.run(["backup", "--database", path("none.sqlite"), "--to", path("b.sqlite")])
        #expect(missing.status == 1)
        #expect(CommandLine.json(missing.stdout)["code"] as? String == "cannot_open")

        // A database made by tally serve is backed up once; the backup is not overwritten.
        let (server, _) = try ServeCommandTests.serve(["serve", "--database", path("live.sqlite")])
        server.terminate()
        server.waitUntilExit()
        let first = try await CommandLine.run(["backup", "--database", path("live.sqlite"), "--to", path("b.sqlite")])
        #expect(first.status == 0, "\(first.stdout)")
        let existing = try await CommandLine.run(["backup", "--database", path("live.sqlite"), "--to", path("b.sqlite")])
        #expect(existing.status == 1)
        #expect(CommandLine.json(existing.stdout)["code"] as? String == "destination_exists")

        // A database whose balance does not equal its ledger is neither backed up nor checked as fine.
        try SQLiteConnection(path: path("live.sqlite")).execute(
            script: "INSERT INTO users (id, app_account_token, created_at) VALUES ('u1', 'token', 0);"
                + "INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, created_at) VALUES ('u1', 'credits', 'balance', 'adjustment', 5, 0);")
        let check = try await CommandLine.run(["check", "--database", path("live.sqlite")])
        #expect(check.status == 1)
        let verdict = CommandLine.json(check.stdout)
        #expect(verdict["code"] as? String == "ledger_mismatch")
        #expect(((verdict["audit"] as? [String: Any])?["mismatches"] as? [[String: Any]])?.first?["user_id"] as? String == "u1")
        let refused = try await CommandLine.run(["backup", "--database", path("live.sqlite"), "--to", path("b2.sqlite")])
        #expect(refused.status == 1)
        #expect(CommandLine.json(refused.stdout)["code"] as? String == "ledger_mismatch")
        #expect(!FileManager.default.fileExists(atPath: path("b2.sqlite")))
    }
}
