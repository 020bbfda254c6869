public import Foundation

/// When to try a failed delivery or spend again: exponential backoff with full jitter, capped.
///
/// After the n-th failure the wait is a random duration between zero and
/// `min(maximumDelay, initialDelay × 2ⁿ⁻¹)`, so devices that failed together do not retry
/// together. A server's `Retry-After` is honoured as a minimum. Waits are in seconds
/// (`TimeInterval`), not `Duration`, so that the policy works on iOS 13.
public struct RetryPolicy: Sendable, Hashable {
    /// The cap of the first wait, in seconds.
    public var initialDelay: TimeInterval
    /// The cap of every wait, in seconds.
    public var maximumDelay: TimeInterval
    /// Whether waits are random below their cap (full jitter) or exactly the cap.
    public var jitter: Bool

    /// - Parameters:
    ///   - initialDelay: the cap of the first wait; 1 s by default.
    ///   - maximumDelay: the cap of every wait; 5 minutes by default.
    ///   - jitter: random waits below the cap; on by default.
    public init(initialDelay: TimeInterval = 1, maximumDelay: TimeInterval = 300, jitter: Bool = true) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// The default: 1 s, doubling, up to 5 minutes, full jitter.
    public static let standard = RetryPolicy()

    /// The cap of the wait after `failures` failures (1 for the first), in seconds; never
    /// negative, never more than ``maximumDelay``.
    public func cap(afterFailures failures: Int) -> TimeInterval {
        let maximum = Self.clamped(maximumDelay)
        var cap = min(Self.clamped(initialDelay), maximum)
        for _ in 1..<max(1, min(failures, 62)) {
            cap *= 2
            if cap >= maximum { return maximum }
        }
        return cap
    }

    /// The wait after `failures` failures, in seconds.
    /// - Parameters:
    ///   - failures: failures so far, 1 for the first.
    ///   - minimum: a wait the server asked for, in seconds, honoured as a floor.
    ///   - generator: the randomness of the jitter.
    /// - Returns: the wait: uniformly random in `0...cap` with jitter, the cap without; at least `minimum`.
    public func delay(afterFailures failures: Int, atLeast minimum: TimeInterval = 0, using generator: inout some RandomNumberGenerator) -> TimeInterval {
        let cap = cap(afterFailures: failures)
        let wait = jitter && cap > 0 ? Double.random(in: 0...cap, using: &generator) : cap
        return max(wait, Self.clamped(minimum))
    }

    /// Seconds made safe to wait on: not a number and negative waits are none; an infinite or
    /// astronomically long one is a century, which no sleep overflows.
    static func clamped(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds > 0 else { return 0 }
        return min(seconds, longestWait)
    }

    /// The longest wait: a century.
    static let longestWait: TimeInterval = 100 * 365 * 86_400
}
