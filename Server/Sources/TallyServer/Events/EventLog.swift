import Foundation
import NIOConcurrencyHelpers
import TallyCore

/// Appends every event to a JSON-lines file, one line each, in sequence order: a sink for
/// analytics tools that read files. The file is its own bookmark: on start the last line that
/// is a whole event says where to go on (anything after it, a line cut short by a crash, is
/// removed), so a restart neither skips nor repeats an event. A file moved away or emptied
/// (log rotation) goes on from where it was: the bookmark is also kept beside it
/// (`FILE.cursor`), for when the file has no line to read it from.
///
/// Sequence numbers can have gaps: on PostgreSQL a number is taken before its transaction
/// commits (or rolls back, leaving the gap for ever), so a later number can be visible first.
/// The log writes up to a gap and waits there; a gap still open after `gapWait` (on the
/// reader's clock; far longer than any transaction) is taken for a rollback and passed.
/// SQLite has one writer, so it has no such gaps: there `gapWait` is 0.
final class EventLog: Sendable {
    let path: String
    let storage: WebhookStore
    let gapWait: TimeInterval
    let now: @Sendable () -> Date
    private struct State {
        var cursor: Int64
        /// When each open gap (by the first missing number) was first seen.
        var gaps: [Int64: Date] = [:]
    }

    private let state: NIOLockedValueBox<State>

    struct Corrupt: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "\(path): no line in its last 64 kB is a Tally event; move the file away to start a new one"
        }
    }

    init(path: String, storage: WebhookStore, gapWait: TimeInterval, now: @escaping @Sendable () -> Date) throws {
        self.path = path
        self.storage = storage
        self.gapWait = gapWait
        self.now = now
        // The file's last line when it has one; the bookmark beside it when it is empty.
        let saved = (try? String(contentsOfFile: path + ".cursor", encoding: .utf8)).flatMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        state = NIOLockedValueBox(State(cursor: try Self.recover(path) ?? saved ?? 0))
    }

    /// The sequence of the last whole event in the file, after cutting off whatever follows
    /// it; nil for an empty file.
    static func recover(_ path: String) throws -> Int64? {
        guard FileManager.default.fileExists(atPath: path) else {
            try create(path)
            return nil
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        guard size > 0 else { return nil }
        // The last 64 kB hold the last event: an event is under 20 kB.
        let start = size > 65_536 ? size - 65_536 : 0
        try handle.seek(toOffset: start)
        let tail = Array(try handle.readToEnd() ?? Data())
        // From the end, the first line that decodes as an event; a partial first line of the
        // window (when it does not start the file) is never taken.
        var end = tail.count
        while end > 0 {
            let lineEnd = tail[end - 1] == UInt8(ascii: "\n") ? end - 1 : end
            let lineStart = tail[..<lineEnd].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            if lineStart > 0 || start == 0, lineEnd > lineStart,
                let sequence = sequence(of: Data(tail[lineStart..<lineEnd]))
            {
                // Keep through this line and its newline.
                try handle.truncate(atOffset: start + UInt64(lineEnd))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data([UInt8(ascii: "\n")]))
                return sequence
            }
            end = lineStart
            if lineStart == 0 { break }
        }
        throw Corrupt(path: path)
    }

    /// The event's sequence, when the line is a whole JSON object with one (an event of a
    /// later version too).
    static func sequence(of line: Data) -> Int64? {
        struct Line: Decodable { var sequence: Int64 }
        return (try? TallyAPI.decoder().decode(Line.self, from: line))?.sequence
    }

    static func create(_ path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Appends the events committed since the last call, up to the first open gap; returns how many.
    func catchUp() async throws -> Int {
        var written = 0
        while true {
            let after = state.withLockedValue { $0.cursor }
            let page = try await storage.events(for: .eventLog, after: after, type: nil, userID: nil, limit: 500)
            // Every gap of the page starts its wait now, not when the ones before it are passed.
            let seenAt = now()
            var gapStart = after + 1
            for event in page.events {
                if event.sequence != gapStart {
                    state.withLockedValue { if $0.gaps[gapStart] == nil { $0.gaps[gapStart] = seenAt } }
                }
                gapStart = event.sequence + 1
            }
            var ready: [TallyEvent] = []
            var expected = after + 1
            var blocked = false
            for event in page.events {
                if event.sequence != expected {
                    let seen = state.withLockedValue { $0.gaps[expected] ?? seenAt }
                    guard seenAt.timeIntervalSince(seen) >= gapWait else {
                        blocked = true
                        break
                    }
                }
                ready.append(event)
                expected = event.sequence + 1
            }
            guard let last = ready.last else { return written }
            var bytes = Data()
            for event in ready {
                bytes.append(try TallyAPI.encoder().encode(event))
                bytes.append(UInt8(ascii: "\n"))
            }
            try append(bytes)
            try? Data(String(last.sequence).utf8).write(to: URL(fileURLWithPath: path + ".cursor"), options: .atomic)
            state.withLockedValue {
                $0.cursor = last.sequence
                $0.gaps = $0.gaps.filter { $0.key > last.sequence }
            }
            written += ready.count
            if blocked || page.nextCursor == nil { return written }
        }
    }

    /// Writes whole lines or nothing: a failed write (a full disk) is cut back off.
    private func append(_ bytes: Data) throws {
        if !FileManager.default.fileExists(atPath: path) { try Self.create(path) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let before = try handle.seekToEnd()
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            try? handle.truncate(atOffset: before)
            throw error
        }
    }
}
