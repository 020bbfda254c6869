import Foundation
import TallySQLite

/// The device's one trusted time, kept in its database: what cached states, subscription
/// expiries and holds on the device are judged at.
///
/// While the device has not restarted it advances with the device's uptime, whatever its
/// clock is set to: a clock moved back extends nothing and a clock moved forward ends
/// nothing. After a restart (uptime went down) it is the device's clock, never earlier than
/// the last time it gave. The entitlements cache and the on-device ledger read the same mark,
/// so both judge at the same time.
struct TrustedClock: Sendable {
    /// The migrations that create the mark's table. It was created with the entitlements
    /// cache's tables, under their names, so whoever opens the database first runs them all.
    static var migrations: [(name: String, sql: String)] { AccountCache.migrations }

    /// How often, at most, the mark is written while the device runs.
    static let markInterval: TimeInterval = 5

    /// Seconds since the device started, which no change of its clock moves.
    let uptime: @Sendable () -> TimeInterval

    /// The trusted time, in milliseconds since 1970, inside the caller's write transaction.
    /// - Parameters:
    ///   - connection: a connection inside a write transaction.
    ///   - wall: the device's clock now.
    func millis(in connection: SQLiteConnection, wall: Date) throws -> Int64 {
        let up = uptime()
        let row = try connection.query("SELECT latest, uptime, trusted FROM clock_high_water WHERE id = 1").first
        let (trusted, due) = Self.advance(row, wall: JournalTime.millis(wall), up: up)
        if due { try Self.mark(connection, wall: JournalTime.millis(wall), up: up, trusted: trusted) }
        return trusted
    }

    /// The trusted time, read (and marked when due) in its own transactions.
    /// - Parameters:
    ///   - database: the device's database.
    ///   - wall: the device's clock now.
    func now(_ database: LocalDatabase, wall: Date) async throws(TallyError) -> Date {
        let up = uptime()
        let row = try await database.read { connection in
            try connection.query("SELECT latest, uptime, trusted FROM clock_high_water WHERE id = 1").first
        }
        let millis = JournalTime.millis(wall)
        let (trusted, due) = Self.advance(row, wall: millis, up: up)
        if due {
            try await database.write { connection in try Self.mark(connection, wall: millis, up: up, trusted: trusted) }
        }
        return JournalTime.date(trusted)
    }

    /// The time now from the last mark, and whether a new mark is due.
    private static func advance(_ row: SQLiteRow?, wall: Int64, up: TimeInterval) -> (trusted: Int64, due: Bool) {
        if let lastUptime = row?["uptime"].real, let lastTrusted = row?["trusted"].integer, up >= lastUptime {
            let trusted = lastTrusted + Int64(((up - lastUptime) * 1000).rounded(.down))
            // Within one boot the time moves with uptime alone: a mark every few seconds is
            // enough, and spares a durable write on every read.
            return (trusted, up - lastUptime >= markInterval)
        }
        return (max(wall, row?["trusted"].integer ?? row?["latest"].integer ?? wall), true)
    }

    private static func mark(_ connection: SQLiteConnection, wall: Int64, up: TimeInterval, trusted: Int64) throws {
        try connection.query(
            """
            INSERT INTO clock_high_water (id, latest, uptime, trusted) VALUES (1, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET latest = MAX(latest, excluded.latest), uptime = excluded.uptime, trusted = excluded.trusted
            """,
            [.integer(wall), .real(up), .integer(trusted)])
    }
}
