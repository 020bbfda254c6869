import Foundation
import TallyCore
import TallyTestSupport
import Testing

@testable import TallyServer

/// The JSON-lines sink: every event once, in order, across restarts and a line cut by a crash.
@Suite struct EventLogTests {
    /// A new file name in the temporary folder; ``remove(_:)`` deletes it with its bookmark and a rotated copy.
    static func temporaryPath() throws -> String {
        try TemporaryFolder().path("events.jsonl")
    }

    static func remove(_ path: String) {
        for suffix in ["", ".cursor", ".1"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func lines(_ path: String) throws -> [TallyEvent] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try TallyAPI.decoder().decode(TallyEvent.self, from: Data($0.utf8))
        }
    }

    @Test func eventsAreAppendedOnceInOrderAcrossRestarts() async throws {
        let harness = try await Harness(.sqlite)
        let path = try Self.temporaryPath()
        defer { Self.remove(path) }
        let clock = harness.clock
        for _ in 0..<3 { _ = try await harness.user() }
        let log = try EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now })
        #expect(try await log.catchUp() == 3)
        #expect(try await log.catchUp() == 0)
        for _ in 0..<2 { _ = try await harness.user() }
        // A new process goes on from the file's last line.
        let restarted = try EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now })
        #expect(try await restarted.catchUp() == 2)
        let events = try Self.lines(path)
        #expect(events.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(events.allSatisfy { $0.type == .creditsGranted })
    }

    @Test func aLineCutShortByACrashIsWrittenAgainWhole() async throws {
        let harness = try await Harness(.sqlite)
        let path = try Self.temporaryPath()
        defer { Self.remove(path) }
        let clock = harness.clock
        for _ in 0..<2 { _ = try await harness.user() }
        _ = try await EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now }).catchUp()
        // The crash: the second line is half written.
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text.removeLast(40)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let restarted = try EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now })
        #expect(try await restarted.catchUp() == 1)
        #expect(try Self.lines(path).map(\.sequence) == [1, 2])
    }

    @Test func aGapIsWaitedForThenPassedAsARollback() async throws {
        let harness = try await Harness(.sqlite)
        let path = try Self.temporaryPath()
        defer { Self.remove(path) }
        let clock = harness.clock
        _ = try await harness.user()
        // Number 2 taken by a transaction not yet visible (on PostgreSQL): 3 is there first.
        _ = try await harness.database.write { executor in
            try await executor.execute(
                "INSERT INTO events (seq, id, type, version, user_id, data, created_at) VALUES (3, 'evt_three', 'credits.granted', 1, NULL, '{}', 0)", [])
        }
        let log = try EventLog(path: path, storage: harness.storage.webhooks, gapWait: 60, now: { clock.now })
        #expect(try await log.catchUp() == 1)
        try await harness.advance(by: .seconds(30))
        #expect(try await log.catchUp() == 0)
        // It committed: written in its place, before 3.
        _ = try await harness.database.write { executor in
            try await executor.execute(
                "INSERT INTO events (seq, id, type, version, user_id, data, created_at) VALUES (2, 'evt_two', 'credits.granted', 1, NULL, '{}', 0)", [])
        }
        #expect(try await log.catchUp() == 2)
        #expect(try Self.lines(path).map(\.sequence) == [1, 2, 3])
        // A gap that stays open (a rollback) is passed once the wait is over.
        _ = try await harness.database.write { executor in
            try await executor.execute(
                "INSERT INTO events (seq, id, type, version, user_id, data, created_at) VALUES (5, 'evt_five', 'credits.granted', 1, NULL, '{}', 0)", [])
        }
        #expect(try await log.catchUp() == 0)
        try await harness.advance(by: .seconds(60))
        #expect(try await log.catchUp() == 1)
        #expect(try Self.lines(path).map(\.sequence) == [1, 2, 3, 5])
    }

    @Test func garbageAfterTheLastEventIsCutAndAMovedFileIsMadeAgain() async throws {
        let harness = try await Harness(.sqlite)
        let path = try Self.temporaryPath()
        defer { Self.remove(path) }
        let clock = harness.clock
        _ = try await harness.user()
        _ = try await EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now }).catchUp()
        // A power cut leaves zeros after the last line.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0, count: 4096))
        try handle.close()
        let log = try EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now })
        _ = try await harness.user()
        #expect(try await log.catchUp() == 1)
        #expect(try Self.lines(path).map(\.sequence) == [1, 2])
        // Rotated away: a new file, going on from where it was.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        _ = try await harness.user()
        #expect(try await log.catchUp() == 1)
        #expect(try Self.lines(path).map(\.sequence) == [3])
    }

    @Test func anEmptiedFileGoesOnFromTheBookmarkBesideIt() async throws {
        let harness = try await Harness(.sqlite)
        let path = try Self.temporaryPath()
        defer { Self.remove(path) }
        let clock = harness.clock
        for _ in 0..<2 { _ = try await harness.user() }
        _ = try await EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now }).catchUp()
        // Rotated by copy and truncate, then a restart: nothing is written twice.
        try Data().write(to: URL(fileURLWithPath: path))
        _ = try await harness.user()
        #expect(try await EventLog(path: path, storage: harness.storage.webhooks, gapWait: 0, now: { clock.now }).catchUp() == 1)
        #expect(try Self.lines(path).map(\.sequence) == [3])
    }

    @Test func gapsInOnePageWaitTogether() async throws {
        let harness = try await Harness(.sqlite)
        let path = try Self.temporaryPath()
        defer { Self.remove(path) }
        let clock = harness.clock
        try await harness.database.write { executor in
            for seq in [2, 4, 6] {
                try await executor.execute(
                    "INSERT INTO events (seq, id, type, version, user_id, data, created_at) VALUES (?, ?, 'credits.granted', 1, NULL, '{}', 0)",
                    [.int(Int64(seq)), .text("evt_\(seq)")])
            }
        }
        let log = try EventLog(path: path, storage: harness.storage.webhooks, gapWait: 60, now: { clock.now })
        #expect(try await log.catchUp() == 0)
        try await harness.advance(by: .seconds(60))
        // Three rolled-back numbers (1, 3, 5), one wait.
        #expect(try await log.catchUp() == 3)
        #expect(try Self.lines(path).map(\.sequence) == [2, 4, 6])
    }

    @Test func aFileWithNoEventInItIsRefusedNotOverwritten() throws {
        let path = try Self.temporaryPath()
        defer { Self.remove(path) }
        try "not an event\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: EventLog.Corrupt.self) { _ = try EventLog.recover(path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not an event\n")
    }
}
