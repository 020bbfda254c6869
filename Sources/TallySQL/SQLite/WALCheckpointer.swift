import Foundation

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// Copies the write-ahead log back into the database file mostly on a connection and a thread
/// of its own, so that the one writer seldom does it between two transactions.
///
/// SQLite's own automatic checkpoint runs inside the COMMIT that takes the log past its
/// threshold: on the writer, while every queued write waits. This one is started by the same
/// signal (the WAL hook after each commit): each time the log has grown by ``intervalPages``
/// since the last copy, a PASSIVE checkpoint copies it on the checkpointer's own connection,
/// which blocks neither the writer nor a reader. A page written many times in an interval (an
/// index's last leaf, a rollup row) is copied once.
///
/// The log starts over only when a write begins with all of it copied back, which a copy beside
/// a writer that keeps appending never reaches. So once the log holds ``restartPages``, the
/// writer copies what is left itself in the COMMIT's hook, as SQLite's own checkpoint would:
/// the frames of the last interval, a part of the log. Each checkpoint syncs the log before it
/// copies and the database file after, as with `synchronous=FULL` on the writer.
final class WALCheckpointer: @unchecked Sendable {
    /// How much the log grows, in pages, between two copies in the background.
    let intervalPages: Int
    /// The log's size, in pages, from which the writer copies the rest itself.
    let restartPages: Int
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "tally.sqlite.checkpoint")
    private let lock = NSLock()
    private var running = false
    /// The log's size when the last copy began: what it has copied, or is copying.
    private var copied = 0
    /// The log's size after the last commit.
    private var latest = 0
    private var counts = (background: 0, writer: 0)

    /// - Parameters:
    ///   - path: the database file.
    ///   - intervalPages: how much the log grows between two copies; the writer copies the rest
    ///     from four times that.
    /// - Throws: ``SQLDatabaseError`` when its connection cannot be opened; the writer then
    ///   keeps SQLite's own checkpoint.
    init(path: String, intervalPages: Int) throws(SQLDatabaseError) {
        self.intervalPages = max(1, intervalPages)
        restartPages = 4 * self.intervalPages
        connection = try SQLiteConnection(path: path)
        // A checkpoint syncs as its own connection says: FULL, as the writer's.
        try connection.execute(script: "PRAGMA synchronous=FULL;")
    }

    /// Copies made so far in the background, and by the writer.
    var checkpoints: (background: Int, writer: Int) { locked { counts } }

    /// Called on the writer's thread after each commit with the log's size in pages; returns
    /// SQLite's result code for the hook.
    func committed(walPages: Int, writer: OpaquePointer?) -> Int32 {
        enum Next { case none, background, writer }
        let next = locked { () -> Next in
            latest = walPages
            // Smaller than what was copied: the log started over.
            if walPages < copied { copied = 0 }
            if running { return .none }
            if walPages >= restartPages {
                copied = walPages
                counts.writer += 1
                return .writer
            }
            guard walPages - copied >= intervalPages else { return .none }
            copied = walPages
            running = true
            return .background
        }
        switch next {
        case .none:
            break
        case .background:
            queue.async { self.copy() }
        case .writer:
            // Busy (another checkpoint holds its lock) is no failure: the next commit tries again.
            _ = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
        return SQLITE_OK
    }

    /// Called when the writer has nothing queued: a log grown by 1,000 pages or more since the
    /// last copy (SQLite's own threshold) is copied while it waits, so that reads find their
    /// pages in the database file rather than searching the log.
    func writerIdle() {
        let start = locked { () -> Bool in
            guard !running, latest - copied >= min(1_000, intervalPages) else { return false }
            copied = latest
            running = true
            return true
        }
        if start { queue.async { self.copy() } }
    }

    /// On the checkpoint queue, the only place its connection is used.
    private func copy() {
        connection.checkpoint()
        locked {
            running = false
            counts.background += 1
        }
    }

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
