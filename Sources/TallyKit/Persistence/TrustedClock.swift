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
        let row = try await database.read { executor in try await Self.row(executor) }
        let (trusted, due) = Self.advance(row, wall: millis, up: up)
        guard due else { return JournalTime.date(trusted) }
        return JournalTime.date(try await database.write { executor in try await Self.millis(in: executor, wall: millis, up: up) })
    }

    /// Uptime in whole milliseconds.
    private func upMillis() -> Int64 { JournalTime.millis(seconds: uptime()) }

    private static func millis(in executor: any SQLExecutor, wall: Int64, up: Int64) async throws -> Int64 {
        let (trusted, due) = advance(try await row(executor), wall: wall, up: up)
        if due {
            try await executor.execute(
                """
                INSERT INTO clock_high_water (id, latest, uptime, trusted) VALUES (1, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET latest = MAX(latest, excluded.latest), uptime = excluded.uptime, trusted = excluded.trusted
                """,
                [.int(wall), .int(up), .int(trusted)])
        }
        return trusted
    }

    private static func row(_ executor: any SQLExecutor) async throws -> SQLRow? {
        try await executor.query("SELECT latest, uptime, trusted FROM clock_high_water WHERE id = 1", []).first
    }

    /// The time now from the last mark, and whether a new mark is due.
    private static func advance(_ row: SQLRow?, wall: Int64, up: Int64) -> (trusted: Int64, due: Bool) {
        if let lastUptime = row?.optionalInt("uptime"), let lastTrusted = row?.optionalInt("trusted"), up >= lastUptime {
            // Within one boot the time moves with uptime alone: a mark every few seconds is
            // enough, and spares a durable write on every read.
            return (lastTrusted + (up - lastUptime), up - lastUptime >= markInterval)
        }
        return (max(wall, row?.optionalInt("trusted") ?? row?.optionalInt("latest") ?? wall), true)
    }
}
