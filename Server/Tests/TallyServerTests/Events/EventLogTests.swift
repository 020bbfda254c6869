import Foundation
import TallyCore
import Testing

@testable import TallyServer

/// The JSON-lines sink: every event once, in order, across restarts and a line cut by a crash.
@Suite struct EventLogTests {
    static func lines(_ path: String) throws -> [TallyEvent] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try TallyAPI.decoder().decode(TallyEvent.self, from: Data($0.utf8))
        }
    }

    @Test func eventsAreAppendedOnceInOrderAcrossRestarts() async throws {
        let harness = try await Harness(.sqlite)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tally-events-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = harness.clock
        for _ in 0..<3 { _ = try await harness.user() }
        let log = try EventLog(path: path, storage: harness.storage, settle: 0, now: { clock.now })
        #expect(try await log.catchUp() == 3)
        #expect(try await log.catchUp() == 0)
        for _ in 0..<2 { _ = try await harness.user() }
        // A new process goes on from the file's last line.
        let restarted = try EventLog(path: path, storage: harness.storage, settle: 0, now: { clock.now })
        #expect(try await restarted.catchUp() == 2)
        let events = try Self.lines(path)
        #expect(events.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(events.allSatisfy { $0.type == .creditsGranted })
    }

    @Test func aLineCutShortByACrashIsWrittenAgainWhole() async throws {
        let harness = try await Harness(.sqlite)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tally-events-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = harness.clock
        for _ in 0..<2 { _ = try await harness.user() }
        _ = try await EventLog(path: path, storage: harness.storage, settle: 0, now: { clock.now }).catchUp()
        // The crash: the second line is half written.
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text.removeLast(40)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let restarted = try EventLog(path: path, storage: harness.storage, settle: 0, now: { clock.now })
        #expect(try await restarted.catchUp() == 1)
        #expect(try Self.lines(path).map(\.sequence) == [1, 2])
    }

    @Test func eventsYoungerThanTheSettlingTimeWait() async throws {
        let harness = try await Harness(.sqlite)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tally-events-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = harness.clock
        _ = try await harness.user()
        let log = try EventLog(path: path, storage: harness.storage, settle: 10, now: { clock.now })
        #expect(try await log.catchUp() == 0)
        try await harness.advance(by: .seconds(10))
        #expect(try await log.catchUp() == 1)
    }
}
