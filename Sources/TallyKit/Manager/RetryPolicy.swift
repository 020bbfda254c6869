/// When to try a failed delivery or spend again: exponential backoff with full jitter, capped.
///
/// After the n-th failure the wait is a random duration between zero and
/// `min(maximumDelay, initialDelay × 2ⁿ⁻¹)`, so devices that failed together do not retry
/// together. A server's `Retry-After` is honoured as a minimum.
public struct RetryPolicy: Sendable, Hashable {
    /// The cap of the first wait.
    public var initialDelay: Duration
    /// The cap of every wait.
    public var maximumDelay: Duration
    /// Whether waits are random below their cap (full jitter) or exactly the cap.
    public var jitter: Bool

    /// - Parameters:
    ///   - initialDelay: the cap of the first wait; 1 s by default.
    ///   - maximumDelay: the cap of every wait; 5 minutes by default.
    ///   - jitter: random waits below the cap; on by default.
    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(300), jitter: Bool = true) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// The default: 1 s, doubling, up to 5 minutes, full jitter.
    public static let standard = RetryPolicy()

    /// The cap of the wait after `failures` failures (1 for the first).
    public func cap(afterFailures failures: Int) -> Duration {
        var cap = initialDelay
        for _ in 1..<max(1, min(failures, 62)) {
            cap = cap * 2
            if cap >= maximumDelay { return maximumDelay }
        }
        return min(cap, maximumDelay)
    }

    /// The wait after `failures` failures.
    /// - Parameters:
    ///   - failures: failures so far, 1 for the first.
    ///   - minimum: a wait the server asked for, honoured as a floor.
    ///   - generator: the randomness of the jitter.
    public func delay(afterFailures failures: Int, atLeast minimum: Duration = .zero, using generator: inout some RandomNumberGenerator) -> Duration {
        let cap = cap(afterFailures: failures)
        let wait: Duration
        if jitter {
            // Saturating: a cap of centuries must not overflow.
            let (whole, overflow) = cap.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let nanoseconds = overflow ? Int64.max : whole.addingReportingOverflow(cap.components.attoseconds / 1_000_000_000).partialValue
            wait = .nanoseconds(nanoseconds > 0 ? Int64.random(in: 0...nanoseconds, using: &generator) : 0)
        } else {
            wait = cap
        }
        return max(wait, minimum)
    }
}
