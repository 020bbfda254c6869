import Foundation
import TallyCore

/// Appends every event to a JSON-lines file, one line each, in sequence order: a sink for
/// analytics tools that read files. The file is its own cursor: on start the last complete
/// line says where to go on (a line cut short by a crash is removed), so a restart neither
/// skips nor repeats an event.
///
/// On PostgreSQL an event's sequence number is taken before its transaction commits, so a
/// later number can commit first; the log reads only events older than `settle` seconds, by
/// which time the earlier ones have committed or rolled back.
final class EventLog: @unchecked Sendable {
    let path: String
    let storage: any WebhookStorage
    let settle: TimeInterval
    let now: @Sendable () -> Date
    private let lock = NSLock()
    private var cursor: Int64

    init(path: String, storage: any WebhookStorage, settle: TimeInterval, now: @escaping @Sendable () -> Date) throws {
        self.path = path
        self.storage = storage
        self.settle = settle
        self.now = now
        cursor = try Self.recover(path)
    }

    /// The sequence of the last complete line, after cutting an incomplete last line off.
    static func recover(_ path: String) throws -> Int64 {
        guard FileManager.default.fileExists(atPath: path) else {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
            return 0
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        // The last 64 kB hold the last line: an event is under 20 kB.
        let start = size > 65_536 ? size - 65_536 : 0
        try handle.seek(toOffset: start)
        let tail = Array(try handle.readToEnd() ?? Data())
        var end = tail.count
        if let last = tail.last, last != UInt8(ascii: "\n") {
            let cut = tail.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            try handle.truncate(atOffset: start + UInt64(cut))
            end = cut
        }
        let lines = tail[..<end].split(separator: UInt8(ascii: "\n"))
        guard let line = lines.last else { return 0 }
        let event = try TallyAPI.decoder().decode(TallyEvent.self, from: Data(line))
        return event.sequence
    }

    /// Appends the events committed since the last call; returns how many.
    func catchUp() async throws -> Int {
        var written = 0
        while true {
            let after = lock.withLock { cursor }
            let page = try await storage.events(after: after, type: nil, userID: nil, limit: 500)
            let limit = now().addingTimeInterval(-settle)
            let ready = page.events.prefix { settle == 0 || $0.timestamp <= limit }
            guard let last = ready.last else { return written }
            var bytes = Data()
            for event in ready {
                bytes.append(try TallyAPI.encoder().encode(event))
                bytes.append(UInt8(ascii: "\n"))
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: bytes)
            lock.withLock { cursor = last.sequence }
            written += ready.count
            if ready.count < page.events.count || page.nextCursor == nil { return written }
        }
    }
}
