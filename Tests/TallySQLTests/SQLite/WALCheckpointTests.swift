import Foundation
import TallyTestSupport
import Testing

@testable import TallySQL

/// The write-ahead log is copied back into the database file beside the writer, and starts
/// over, while writes go on.
@Suite struct WALCheckpointTests {
    /// Writes 1,500 rows of about a page each, 50 at once, so that they commit in batches as a
    /// server's do; the writer goes idle between two fifties.
    static func writePages(_ database: SQLiteDatabase) async throws {
        try await database.migrate([Migration(name: "0001_pages", both: ["CREATE TABLE pages (id BIGINT PRIMARY KEY, body TEXT NOT NULL)"])])
        let body = String(repeating: "x", count: 3_000)
        for start in stride(from: Int64(1), to: 1_501, by: 50) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in start..<(start + 50) {
                    group.addTask {
                        _ = try await database.write { executor in try await executor.execute("INSERT INTO pages (id, body) VALUES (\(id), \(body))") }
                    }
                }
                try await group.waitForAll()
            }
        }
        let count = try await database.read { executor in try await executor.query("SELECT COUNT(*) AS n FROM pages").first?.int(SQLColumn("n")) }
        #expect(count == 1_500)
    }

    static func size(_ file: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0 }

    @Test func theLogIsCopiedBackAndStartsOverWhileWritesGoOn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("pages.sqlite")
        let database = try SQLiteDatabase(path: path, checkpointPages: 50)
        try await Self.writePages(database)
        #expect(try #require(database.checkpointer).checkpoints.background > 0)
        // The rows' pages are in the database file (without a checkpoint it would hold the schema only)...
        #expect(try Self.size(path) > 1_000 * 3_000)
        // ...and the log started over: it never held half of the 1,500 pages written.
        #expect(try Self.size(path + "-wal") < 750 * 4_120)
    }

    @Test func aWriterWithNothingQueuedLetsTheLogBeCopied() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("pages.sqlite")
        // No commit takes the log 5,000 pages past the last copy: only the writer's idle moments can.
        let database = try SQLiteDatabase(path: path, checkpointPages: 5_000)
        try await Self.writePages(database)
        let checkpointer = try #require(database.checkpointer)
        // The copy runs on its own thread: give it time.
        for _ in 0..<100 {
            if checkpointer.checkpoints.background > 0, try Self.size(path) > 1_000 * 3_000 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(checkpointer.checkpoints.background >= 1)
        #expect(checkpointer.checkpoints.writer == 0)
        #expect(try Self.size(path) > 1_000 * 3_000)
    }

    @Test func aDatabaseThatDoesNotAskKeepsSQLitesOwnCheckpoint() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try SQLiteDatabase(path: folder.path("device.sqlite")).checkpointer == nil)
    }
}
