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

    /// A tail that adds to one total, notes each of its runs, and lists the writes it holds in order.
    struct Total: CommitTail {
        var amount: Int64
        var writes: [Int64]

        init(_ write: Int64, amount: Int64) {
            self.amount = amount
            self.writes = [write]
        }

        mutating func merge(_ later: Total) {
            amount += later.amount
            writes += later.writes
        }

        func run(_ executor: any SQLExecutor) async throws {
            try await executor.execute(
                "INSERT INTO totals (id, amount) VALUES (1, \(amount)) ON CONFLICT (id) DO UPDATE SET amount = totals.amount + excluded.amount")
            try await executor.execute("INSERT INTO tail_runs (amount) VALUES (\(amount))")
            for write in writes { try await executor.execute("INSERT INTO tail_writes (item) VALUES (\(write))") }
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
                    // The order the writes ran in, and the order their tails listed them in.
                    "CREATE TABLE ran (seq INTEGER PRIMARY KEY AUTOINCREMENT, item BIGINT NOT NULL)",
                    "CREATE TABLE tail_writes (seq INTEGER PRIMARY KEY AUTOINCREMENT, item BIGINT NOT NULL)",
                    // What a write without a tail saw of the total.
                    "CREATE TABLE seen (item BIGINT PRIMARY KEY, total BIGINT NOT NULL)",
                ])
        ])
        return database
    }

    static func column(_ database: SQLiteDatabase, _ statement: String, _ name: String) async throws -> [Int64] {
        try await database.read { executor in try await executor.query(statement, []).map { try $0.int(SQLColumn(name)) } }
    }

    /// Queues `writes` behind a first write (0) that holds the writer until they have all queued,
    /// so that they commit together; returns whether each committed.
    static func heldBatch(
        _ database: SQLiteDatabase, _ writes: [Int64], _ write: @escaping @Sendable (Int64) async throws -> Void
    ) async throws -> [Int64: Bool] {
        let gate = Gate()
        let first = Task {
            try await database.write(tail: Total.self) { executor in
                try await executor.execute("INSERT INTO ran (item) VALUES (0)", [])
                await gate.wait()
                return ((), Total(0, amount: 1))
            }
        }
        // The first write runs alone in its batch: the others queue behind it for the next.
        await gate.arrived()
        let outcomes = await withTaskGroup(of: (Int64, Bool).self) { group in
            for id in writes {
                group.addTask {
                    do {
                        try await write(id)
                        return (id, true)
                    } catch {
                        return (id, false)
                    }
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
            await gate.open()
            var outcomes: [Int64: Bool] = [:]
            for await (id, committed) in group { outcomes[id] = committed }
            return outcomes
        }
        try await first.value
        return outcomes
    }

    @Test func theTailsOfTheWritesCommittedTogetherRunOnceMergedInCommitOrderAndOnlyForThoseThatCommitted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.totals(folder)
        let outcomes = try await Self.heldBatch(database, Array(1...60)) { id in
            try await database.write(tail: Total.self) { executor in
                try await executor.execute("INSERT INTO ran (item) VALUES (\(id))")
                if id % 5 == 0 { throw Refused() }
                // A write without a tail commits with the others.
                return ((), id % 3 == 0 ? nil : Total(id, amount: id))
            }
        }
        let committed = (Int64(1)...60).filter { $0 % 5 != 0 }
        #expect(Set(outcomes.filter(\.value).keys) == Set(committed))
        let expected = 1 + committed.filter { $0 % 3 != 0 }.reduce(0, +)
        let total = try await Self.column(database, "SELECT amount FROM totals WHERE id = 1", "amount")
        let runs = try await Self.column(database, "SELECT amount FROM tail_runs ORDER BY run", "amount")
        // The refused writes added nothing; each batch ran its merged tail once.
        #expect(total == [expected])
        #expect(runs.reduce(0, +) == expected)
        let withTails = 1 + committed.filter { $0 % 3 != 0 }.count
        #expect(runs.count < withTails, "\(runs)")
        // The tails were merged in the order their writes ran.
        let ran = try await Self.column(database, "SELECT item FROM ran ORDER BY seq", "item").filter { $0 == 0 || $0 % 3 != 0 }
        #expect(try await Self.column(database, "SELECT item FROM tail_writes ORDER BY seq", "item") == ran)
    }

    @Test func aWriteWithoutATailSeesTheTailsOfTheWritesBeforeIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.totals(folder)
        let outcomes = try await Self.heldBatch(database, Array(1...30)) { id in
            if id % 10 == 0 {
                // It keeps the total it saw, in its own transaction.
                try await database.write { executor in
                    try await executor.execute("INSERT INTO ran (item) VALUES (\(id))")
                    try await executor.execute("INSERT INTO seen (item, total) SELECT \(id), COALESCE((SELECT amount FROM totals WHERE id = 1), 0)")
                }
            } else {
                try await database.write(tail: Total.self) { executor in
                    try await executor.execute("INSERT INTO ran (item) VALUES (\(id))")
                    return ((), Total(id, amount: id))
                }
            }
        }
        #expect(outcomes.values.allSatisfy { $0 })
        // Each write without a tail saw the amounts of every tailed write that ran before it.
        let ran = try await Self.column(database, "SELECT item FROM ran ORDER BY seq", "item")
        let seen = try await database.read { executor in
            try await executor.query("SELECT item, total FROM seen").map { (try $0.int(SQLColumn("item")), try $0.int(SQLColumn("total"))) }
        }
        #expect(seen.count == 3)
        for (id, total) in seen {
            let before = ran.prefix { $0 != id }
            #expect(total == before.map { $0 == 0 ? 1 : ($0 % 10 == 0 ? 0 : $0) }.reduce(0, +), "\(id) in \(ran)")
        }
    }

    @Test func aTailThatFailsRollsBackItsWholeBatch() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.totals(folder)
        struct Failing: CommitTail {
            mutating func merge(_ later: Failing) {}
            func run(_ executor: any SQLExecutor) async throws {
                try await executor.execute("INSERT INTO items (id, amount) VALUES (99, 0)", [])
            }
        }
        let outcomes = try await Self.heldBatch(database, Array(1...20)) { id in
            if id == 7 {
                try await database.write(tail: Failing.self) { executor in
                    try await executor.execute("INSERT INTO items (id, amount) VALUES (\(id), 1)")
                    return ((), Failing())
                }
            } else {
                try await database.write(tail: Total.self) { executor in
                    try await executor.execute("INSERT INTO items (id, amount) VALUES (\(id), 1)")
                    return ((), Total(id, amount: id))
                }
            }
        }
        // The failing write and the writes committed with it failed, and left nothing.
        #expect(outcomes[7] == false)
        let failed = Set(outcomes.filter { !$0.value }.keys)
        #expect(failed.count > 1, "\(outcomes)")
        #expect(try await Self.ids(database) == Set(outcomes.filter(\.value).keys))
        // The writer goes on.
        _ = try await database.write { executor in try await executor.execute("INSERT INTO items (id, amount) VALUES (100, 2)", []) }
        #expect(try await Self.ids(database).contains(100))
    }

    @Test func rowsAreSplitInRunsOfPowersOfTwoOrOfTheLargest() {
        #expect(SQL.rowRuns(0, largest: 256, powersOfTwoAbove: 8).isEmpty)
        #expect(SQL.rowRuns(5, largest: 256, powersOfTwoAbove: 8) == [0..<5])
        #expect(SQL.rowRuns(13, largest: 256, powersOfTwoAbove: 8) == [0..<8, 8..<13])
        #expect(SQL.rowRuns(600, largest: 256, powersOfTwoAbove: 8).map(\.count) == [256, 256, 64, 16, 8])
        #expect(SQL.rowRuns(900, largest: 400) == [0..<400, 400..<800, 800..<900])
        // Whatever the count, few sizes.
        let sizes = Set((1...1_000).flatMap { SQL.rowRuns($0, largest: 256, powersOfTwoAbove: 8).map(\.count) })
        #expect(sizes == Set(1...8).union([16, 32, 64, 128, 256]))
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
