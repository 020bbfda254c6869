import Foundation
import TallySQL
import TallyTestSupport
import Testing

/// SQLite as the server and the device both use it: transactions committed together, each
/// whole or not at all, reads on snapshots, commits that outlive the handle.
@Suite struct SQLiteDatabaseTests {
    struct Refused: Error {}

    static func database(_ folder: TemporaryFolder) async throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: folder.path("items.sqlite"))
        try await database.migrate([
            Migration(name: "0001_items", both: ["CREATE TABLE items (id BIGINT PRIMARY KEY, amount BIGINT NOT NULL CHECK (amount > 0))"])
        ])
        return database
    }

    static func ids(_ database: SQLiteDatabase) async throws -> Set<Int64> {
        try await database.read { executor in Set(try await executor.query("SELECT id FROM items", []).map { try $0.int(SQLColumn("id")) }) }
    }

    @Test(arguments: [":memory:", "file::memory:?cache=shared", ""])
    func anInMemoryDatabaseIsRefused(path: String) {
        #expect(throws: SQLDatabaseError.self) { try SQLiteDatabase(path: path) }
    }

    @Test func aTransactionThatThrowsRollsBackAloneWhileTheOthersCommit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        // Many at once, so that they queue and are committed in batches.
        let outcomes = await withTaskGroup(of: (Int64, Bool).self) { group in
            for id in Int64(1)...60 {
                group.addTask {
                    do {
                        try await database.write { executor in
                            try await executor.execute("INSERT INTO items (id, amount) VALUES (?, ?)", [.int(id), .int(id)])
                            if id % 5 == 0 { throw Refused() }
                            // A constraint failure after a first statement rolls that statement back too.
                            if id % 7 == 0 { try await executor.execute("INSERT INTO items (id, amount) VALUES (?, 0)", [.int(id + 1_000)]) }
                        }
                        return (id, true)
                    } catch {
                        return (id, false)
                    }
                }
            }
            var outcomes: [Int64: Bool] = [:]
            for await (id, committed) in group { outcomes[id] = committed }
            return outcomes
        }
        let expected = Set((Int64(1)...60).filter { $0 % 5 != 0 && $0 % 7 != 0 })
        #expect(Set(outcomes.filter(\.value).keys) == expected)
        #expect(try await Self.ids(database) == expected)
    }

    /// A tail that adds to one total and notes each of its runs.
    struct Total: CommitTail {
        var amount: Int64

        mutating func merge(_ later: Total) { amount += later.amount }

        func run(_ executor: any SQLExecutor) async throws {
            try await executor.execute(
                "INSERT INTO totals (id, amount) VALUES (1, \(amount)) ON CONFLICT (id) DO UPDATE SET amount = totals.amount + excluded.amount")
            try await executor.execute("INSERT INTO tail_runs (amount) VALUES (\(amount))")
        }
    }

    static func totals(_ folder: TemporaryFolder) async throws -> SQLiteDatabase {
        let database = try await Self.database(folder)
        try await database.migrate([
            Migration(
                name: "0002_totals",
                both: [
                    "CREATE TABLE totals (id BIGINT PRIMARY KEY, amount BIGINT NOT NULL)",
                    "CREATE TABLE tail_runs (run INTEGER PRIMARY KEY AUTOINCREMENT, amount BIGINT NOT NULL)",
                ])
        ])
        return database
    }

    @Test func theTailsOfTheWritesCommittedTogetherRunOnceMergedAndOnlyForThoseThatCommitted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.totals(folder)
        // The first write holds the writer until the others have queued behind it.
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await database.write(tail: Total.self) { executor in
                try await executor.execute("INSERT INTO items (id, amount) VALUES (1000, 1)", [])
                for await _ in release { break }
                return ((), Total(amount: 1))
            }
        }
        let outcomes = await withTaskGroup(of: (Int64, Bool).self) { group in
            for id in Int64(1)...60 {
                group.addTask {
                    do {
                        try await database.write(tail: Total.self) { executor in
                            try await executor.execute("INSERT INTO items (id, amount) VALUES (?, ?)", [.int(id), .int(id)])
                            if id % 5 == 0 { throw Refused() }
                            // A write without a tail commits with the others.
                            return ((), id % 3 == 0 ? nil : Total(amount: id))
                        }
                        return (id, true)
                    } catch {
                        return (id, false)
                    }
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
            released.yield()
            var outcomes: [Int64: Bool] = [:]
            for await (id, committed) in group { outcomes[id] = committed }
            return outcomes
        }
        try await first.value
        let committed = (Int64(1)...60).filter { $0 % 5 != 0 }
        #expect(Set(outcomes.filter(\.value).keys) == Set(committed))
        let expected = 1 + committed.filter { $0 % 3 != 0 }.reduce(0, +)
        let (total, runs) = try await database.read { executor in
            let total = try await executor.query("SELECT amount FROM totals WHERE id = 1", []).first?.int(SQLColumn("amount"))
            let runs = try await executor.query("SELECT amount FROM tail_runs ORDER BY run", []).map { try $0.int(SQLColumn("amount")) }
            return (total, runs)
        }
        // The refused writes added nothing; each batch ran its merged tail once.
        #expect(total == expected)
        #expect(runs.reduce(0, +) == expected)
        let withTails = 1 + committed.filter { $0 % 3 != 0 }.count
        #expect(runs.count < withTails, "\(runs)")
    }

    @Test func aTailThatFailsRollsBackItsBatch() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.totals(folder)
        struct Failing: CommitTail {
            mutating func merge(_ later: Failing) {}
            func run(_ executor: any SQLExecutor) async throws {
                try await executor.execute("INSERT INTO items (id, amount) VALUES (99, 0)", [])
            }
        }
        await #expect(throws: SQLDatabaseError.self) {
            try await database.write(tail: Failing.self) { executor in
                try await executor.execute("INSERT INTO items (id, amount) VALUES (1, 1)", [])
                return ((), Failing())
            }
        }
        #expect(try await Self.ids(database).isEmpty)
        // The writer goes on.
        _ = try await database.write { executor in try await executor.execute("INSERT INTO items (id, amount) VALUES (2, 2)", []) }
        #expect(try await Self.ids(database) == [2])
    }

    @Test func aReadSeesOneSnapshotWhileAWriteCommitsBesideIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        _ = try await database.write { executor in try await executor.execute("INSERT INTO items (id, amount) VALUES (1, 1)", []) }
        let (first, second) = try await database.read { executor in
            let first = try await executor.query("SELECT COUNT(*) AS n FROM items", []).first?.int(SQLColumn("n"))
            _ = try await database.write { executor in try await executor.execute("INSERT INTO items (id, amount) VALUES (2, 2)", []) }
            let second = try await executor.query("SELECT COUNT(*) AS n FROM items", []).first?.int(SQLColumn("n"))
            return (first, second)
        }
        #expect(first == 1 && second == 1)
        // A read that begins after the commit sees it.
        #expect(try await Self.ids(database) == [1, 2])
    }

    @Test func aReadCannotWrite() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.database(folder)
        await #expect(throws: SQLDatabaseError.self) {
            try await database.read { executor in try await executor.execute("INSERT INTO items (id, amount) VALUES (1, 1)", []) }
        }
        #expect(try await Self.ids(database).isEmpty)
    }

    @Test func whatWasCommittedIsThereWhenTheFileIsOpenedAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            let database = try await Self.database(folder)
            _ = try await database.write { executor in try await executor.execute("INSERT INTO items (id, amount) VALUES (7, 70)", []) }
        }
        let reopened = try await Self.database(folder)
        #expect(try await Self.ids(reopened) == [7])
    }
}
