public import Foundation

/// Times as the databases, the Tally API's numbers and the App Store Server API store them:
/// whole milliseconds since 1970, in one place with one rounding.
///
/// A date becomes the millisecond it falls in (rounded down): a stored time is never later
/// than the moment it records, so an expiry written at `now` has passed at `now`, and two
/// moments in one millisecond order the same way however they are rounded. A date made from
/// whole milliseconds comes back as exactly those milliseconds, although binary floating point
/// may hold it a hair below them.
///
/// ```swift
/// let stored = EpochMilliseconds.of(now())        // 1_772_323_200_123
/// let date = EpochMilliseconds.date(stored)
/// ```
public enum EpochMilliseconds: Sendable {
    /// The whole milliseconds since 1970 of `date`, rounded down.
    /// - Parameter date: any date; one beyond ±292 million years (a cutoff of "never") is
    ///   clamped rather than trapping.
    /// - Returns: the millisecond it falls in.
    public static func of(_ date: Date) -> Int64 {
        let milliseconds = date.timeIntervalSince1970 * 1000
        guard milliseconds.isFinite else { return milliseconds > 0 ? .max : .min }
        let nearest = milliseconds.rounded()
        // Within a microsecond of a whole millisecond is that millisecond: a date made from
        // whole milliseconds is held to about 0.0002 ms at today's dates.
        let whole = abs(milliseconds - nearest) < 0.001 ? nearest : milliseconds.rounded(.down)
        return Int64(max(-9.2e18, min(9.2e18, whole)))
    }

    /// The date of a number of milliseconds since 1970.
    /// - Parameter milliseconds: milliseconds since 1970.
    /// - Returns: that date; ``of(_:)`` gives back `milliseconds`.
    public static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
