public import Foundation

/// A wall clock that shows what a test sets: the `now` of the simulated App Store, a verifier,
/// a server and a device, shared so that they all agree on the time.
///
/// ```swift
/// let time = ManualDate(start)
/// let verifier = SignedDataVerifier(configuration, now: time.closure)
/// time.advance(by: 86_400)              // a day later, for everyone at once
/// ```
public final class ManualDate: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// - Parameter start: the time it shows first.
    public init(_ start: Date) {
        current = start
    }

    /// The time it shows.
    public var now: Date { lock.withLock { current } }

    /// Shows another time, earlier or later.
    public func set(_ date: Date) {
        lock.withLock { current = date }
    }

    /// Moves the time on by `seconds` (back when negative).
    public func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    /// ``now`` as the `now: @Sendable () -> Date` closure that Tally's types take.
    public var closure: @Sendable () -> Date { { [self] in now } }
}
