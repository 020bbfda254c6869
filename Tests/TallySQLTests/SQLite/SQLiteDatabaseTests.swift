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
