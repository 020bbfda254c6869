import Foundation
import TallySQL

/// The device's one trusted time, kept in its database: what cached states, subscription
/// expiries and holds on the device are judged at.
///
/// While the device has not restarted it advances with the device's uptime, whatever its
/// clock is set to: a clock moved back extends nothing and a clock moved forward ends
/// nothing. After a restart (uptime went down) it is the device's clock, never earlier than
/// the last time it gave. The entitlements cache and the on-device ledger read the same mark,
/// so both judge at the same time. Its table, `clock_high_water`, is in the device's schema
/// (`LocalDatabase+Schema.swift`); uptime is stored in milliseconds.
struct TrustedClock: Sendable {
    /// How often, at most, the mark is written while the device runs, in milliseconds.
    static let markInterval: Int64 = 5_000

    /// Seconds since the device started, which no change of its clock moves.
    let uptime: @Sendable () -> TimeInterval

    /// The trusted time, in milliseconds since 1970, inside the caller's write transaction.
    /// - Parameters:
    ///   - executor: the caller's write transaction.
    ///   - wall: the device's clock now.
    func millis(in executor: any SQLExecutor, wall: Date) async throws -> Int64 {
        try await Self.millis(in: executor, wall: JournalTime.millis(wall), up: upMillis())
    }

    /// The trusted time, read on a snapshot; when a new mark is due, read again and marked in
    /// one write transaction, so that the mark always moves from the one that stands.
    /// - Parameters:
    ///   - database: the device's database.
    ///   - wall: the device's clock now.
    func now(_ database: LocalDatabase, wall: Date) async throws(TallyError) -> Date {
        let up = upMillis(), millis = JournalTime.millis(wall)
        let mark = try await database.read { executor in try await Self.mark(executor) }
        let (trusted, due) = Self.advance(mark, wall: millis, up: up)
        guard due else { return JournalTime.date(trusted) }
        return JournalTime.date(try await database.write { executor in try await Self.millis(in: executor, wall: millis, up: up) })
    }

    /// Uptime in whole milliseconds.
    private func upMillis() -> Int64 { JournalTime.millis(seconds: uptime()) }

    private static func millis(in executor: any SQLExecutor, wall: Int64, up: Int64) async throws -> Int64 {
        let (trusted, due) = advance(try await mark(executor), wall: wall, up: up)
        if due {
            try await executor.execute(
                """
                INSERT INTO clock_high_water (id, latest, uptime, trusted) VALUES (1, \(wall), \(up), \(trusted))
                ON CONFLICT (id) DO UPDATE SET latest = MAX(latest, excluded.latest), uptime = excluded.uptime, trusted = excluded.trusted
                """)
        }
        return trusted
    }

    /// The last mark: the latest wall time seen, and the uptime and trusted time it was made at.
    struct Mark: SQLRowDecodable {
        enum Columns {
            static let latest = SQLColumn("latest")
            static let uptime = SQLColumn("uptime")
            static let trusted = SQLColumn("trusted")
        }

        let latest: Int64?
        let uptime: Int64?
        let trusted: Int64?

        init(row: SQLRow) throws(SQLDatabaseError) {
            latest = try row.optionalInt(Columns.latest)
            uptime = try row.optionalInt(Columns.uptime)
            trusted = try row.optionalInt(Columns.trusted)
        }
    }

    private static func mark(_ executor: any SQLExecutor) async throws -> Mark? {
        try await executor.fetchOne(Mark.self, "SELECT latest, uptime, trusted FROM clock_high_water WHERE id = 1")
    }

    /// The time now from the last mark, and whether a new mark is due.
    private static func advance(_ mark: Mark?, wall: Int64, up: Int64) -> (trusted: Int64, due: Bool) {
        if let lastUptime = mark?.uptime, let lastTrusted = mark?.trusted, up >= lastUptime {
            // Within one boot the time moves with uptime alone: a mark every few seconds is
            // enough, and spares a durable write on every read.
            return (lastTrusted + (up - lastUptime), up - lastUptime >= markInterval)
        }
        return (max(wall, mark?.trusted ?? mark?.latest ?? wall), true)
    }
}
