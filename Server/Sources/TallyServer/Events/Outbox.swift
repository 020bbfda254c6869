import Foundation
import TallyCore
import TallySQL

/// Writes events inside the transaction of the change that causes them: the change and its
/// event commit together or not at all. Each event is queued at once for every enabled
/// webhook endpoint that wants its type (one delivery row per endpoint, by primary key).
///
/// It is had from a write's ``WriteContext`` only, which counts the events once the write has
/// committed (the `/metrics` counter per type).
struct Outbox {
    let context: WriteContext

    init(_ context: WriteContext) { self.context = context }

    func emit(_ type: TallyEventType, _ data: TallyEventData) async throws {
        let id = Self.newID()
        let now = context.now
        let text = String(decoding: try TallyAPI.encoder().encode(data), as: UTF8.self)
        let event: SQL = """
            INSERT INTO events (id, type, version, user_id, data, created_at)
            VALUES (\(id), \(type.rawValue), \(Int64(TallyEvent.version)), \(data.userID), \(text), \(now))
            """
        // The endpoints that want it.
        let endpoints: SQL = """
            webhook_endpoints w
            WHERE w.disabled = 0 AND (w.all_types = 1 OR EXISTS (
                SELECT 1 FROM webhook_endpoint_types t WHERE t.endpoint_id = w.id AND t.type = \(type.rawValue)))
            """
        if context.dialect == .postgres {
            // One round trip: the event and its deliveries (the WITH's insert runs even when no
            // endpoint wants it).
            try await context.execute(
                """
                WITH e AS (\(event) RETURNING seq)
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at)
                SELECT w.id, e.seq, 'pending', \(now), \(now) FROM e, \(endpoints)
                """)
        } else {
            // SQLite has no INSERT inside WITH; its statements are calls in this process.
            try await context.execute(event)
            try await context.execute(
                """
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at)
                SELECT w.id, (SELECT seq FROM events WHERE id = \(id)), 'pending', \(now), \(now) FROM \(endpoints)
                """)
        }
        context.noteEvent(type)
    }

    /// `evt_` and 26 characters of a random UUID's bits (base 32, lowercase): unique without coordination.
    static func newID() -> String {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 26)
        for index in bytes.indices { bytes[index] = alphabet[Int(generator.next(upperBound: UInt8(32)))] }
        return "evt_" + String(decoding: bytes, as: UTF8.self)
    }

}
