import Foundation
import TallyCore
import TallySQL

/// Writes events inside the transaction of the change that causes them: the change and its
/// event commit together or not at all. Each event is queued at once for every enabled
/// webhook endpoint that wants its type (one delivery row per endpoint, by primary key).
///
/// Events are written only while something reads them (decision 0042): a webhook endpoint
/// exists, or an ``EventReader`` has asked for them. Otherwise the insert writes no row: no
/// index page and no delivery either.
///
/// It is had from a write's ``WriteContext`` only, which counts the events once the write has
/// committed (the `/metrics` counter per type).
struct Outbox {
    let context: WriteContext

    init(_ context: WriteContext) { self.context = context }

    func emit(_ type: TallyEventType, _ data: TallyEventData) async throws {
        let now = context.now
        let id = Self.newID(at: now)
        let text = ResponseJSON.text(data)
        // Written at the write's end (``WriteTail``), in the order emitted.
        context.queueEvent(type, row: "(\(id), \(type.rawValue), \(Int64(TallyEvent.version)), \(data.userID), \(text), \(now))")
    }

    /// The inserts of events queued as rows (``emit(_:_:)``'s), in that order; none when there
    /// are none. Each inserts its rows only while something reads the events (``readersExist``),
    /// decided by the statement itself, on the transaction's own view of the endpoints and readers.
    /// Their deliveries, one per endpoint that wants each, are made by the database as they are
    /// inserted (the trigger of `0006_event_deliveries`).
    /// - Parameters:
    ///   - rows: the events' rows.
    ///   - runs: how the rows are split among statements (``WriteTail/runs(_:dialect:)``).
    static func inserts(_ rows: [SQL], runs: [Range<Int>]) -> [SQL] {
        runs.map { run in
            var values = rows[run.lowerBound]
            for row in rows[(run.lowerBound + 1)..<run.upperBound] { values += ", " + row }
            return "INSERT INTO events (id, type, version, user_id, data, created_at) SELECT * FROM (VALUES " + values + ") AS new_event WHERE "
                + readersExist
        }
    }

    /// Whether anything reads the events: a webhook endpoint, enabled or not (events can be
    /// replayed to one), or a reader that asked.
    static let readersExist: SQL = "EXISTS (SELECT 1 FROM webhook_endpoints) OR EXISTS (SELECT 1 FROM event_readers)"

    /// `evt_` and 26 characters of base 32 (lowercase): the time in milliseconds, then 80 random
    /// bits, so unique without coordination. Ids that grow with time land at the end of the
    /// unique index, where a write's ids share a page: random ones dirtied a page of it each.
    /// - Parameter millis: the write's time, epoch milliseconds.
    static func newID(at millis: Int64) -> String { "evt_" + RandomID.timeOrdered(millis: millis) }
}
