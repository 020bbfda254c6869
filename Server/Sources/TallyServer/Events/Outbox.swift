import Foundation
import TallyCore
import TallySQL

/// Writes events inside the transaction of the change that causes them: the change and its
/// event commit together or not at all. Each event is queued at once for every enabled
/// webhook endpoint that wants its type (one delivery row per endpoint, by primary key).
struct Outbox {
    let executor: any SQLExecutor
    /// Now, in epoch milliseconds.
    let now: Int64

    func emit(_ type: TallyEventType, _ data: TallyEventData) async throws {
        let id = Self.newID()
        let text = String(decoding: try TallyAPI.encoder().encode(data), as: UTF8.self)
        try await executor.execute(
            "INSERT INTO events (id, type, version, user_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(id), .text(type.rawValue), .int(Int64(TallyEvent.version)), .optional(data.userID), .text(text), .int(now)])
        try await executor.execute(
            """
            INSERT INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at)
            SELECT e.id, (SELECT seq FROM events WHERE id = ?), 'pending', ?, ?
            FROM webhook_endpoints e
            WHERE e.disabled = 0 AND (e.all_types = 1 OR EXISTS (
                SELECT 1 FROM webhook_endpoint_types t WHERE t.endpoint_id = e.id AND t.type = ?))
            """,
            [.text(id), .int(now), .int(now), .text(type.rawValue)])
        (executor as? EventCountingExecutor)?.note(type)
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

/// An executor that notes the types of the events written through it, so that the storage
/// counts them per type once the transaction has committed (not when it rolls back).
final class EventCountingExecutor: SQLExecutor, @unchecked Sendable {
    private let base: any SQLExecutor
    private let lock = NSLock()
    private var noted: [TallyEventType] = []

    init(_ base: any SQLExecutor) { self.base = base }

    func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
        try await base.query(sql)
    }

    @discardableResult
    func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
        try await base.execute(sql)
    }

    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        try await base.query(sql, binds)
    }

    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
        try await base.execute(sql, binds)
    }

    func note(_ type: TallyEventType) { lock.withLock { noted.append(type) } }

    var types: [TallyEventType] { lock.withLock { noted } }

    /// Each user whose access this transaction may change: the entitlements active before the
    /// first such change, and what made it (a transaction, an operator).
    struct Touched {
        var before: Set<String>
        var transactionID: String?
        var actor: String?
    }

    private var touched: [String: Touched] = [:]
    private var order: [String] = []

    func hasTouched(_ user: String) -> Bool { lock.withLock { touched[user] != nil } }

    func touch(_ user: String, _ value: Touched) {
        lock.withLock {
            guard var existing = touched[user] else {
                touched[user] = value
                order.append(user)
                return
            }
            // The first note keeps its snapshot; a later one may name the cause it lacked.
            existing.transactionID = existing.transactionID ?? value.transactionID
            existing.actor = existing.actor ?? value.actor
            touched[user] = existing
        }
    }

    var touchedUsers: [(String, Touched)] { lock.withLock { order.map { ($0, touched[$0]!) } } }

    /// Holds the executor of the attempt that committed, out of the transaction's closure.
    final class Box: @unchecked Sendable {
        var executor: EventCountingExecutor?
    }
}
