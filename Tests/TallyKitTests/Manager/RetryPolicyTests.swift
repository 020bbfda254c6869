import Foundation
import TallyKit
import Testing

/// Backoff: the cap doubles from the first wait up to the maximum; waits are uniformly random
/// below the cap (full jitter); a server's Retry-After is a floor.
@Suite struct RetryPolicyTests {
    /// A fixed sequence of random numbers, so that jitter is checked, not trusted.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func theCapDoublesUpToTheMaximum() {
        let policy = RetryPolicy(initialDelay: 1, maximumDelay: 60, jitter: true)
        #expect((1...8).map { policy.cap(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 60, 60])
        // Thousands of failures neither overflow nor exceed the maximum.
        #expect(policy.cap(afterFailures: 10_000) == 60)
        #expect(policy.cap(afterFailures: 0) == 1)
    }

    @Test func withoutJitterTheWaitIsTheCap() {
        let policy = RetryPolicy(initialDelay: 0.5, maximumDelay: 10, jitter: false)
        var random = SplitMix(state: 1)
        #expect(
            (1...6).map { policy.delay(afterFailures: $0, using: &random) }
                == [0.5, 1, 2, 4, 8, 10])
    }

    @Test func fullJitterSpreadsWaitsOverTheWholeRangeBelowTheCap() {
        let policy = RetryPolicy.standard
        var random = SplitMix(state: 42)
        let cap = policy.cap(afterFailures: 4)
        let waits = (0..<2_000).map { _ in policy.delay(afterFailures: 4, using: &random) }
        #expect(waits.allSatisfy { $0 >= 0 && $0 <= cap })
        // Uniform on [0, cap]: a quarter falls in each quarter of the range, give or take.
        for quarter in 0..<4 {
            let low = cap * Double(quarter) / 4, high = cap * Double(quarter + 1) / 4
            let share = Double(waits.filter { $0 >= low && $0 < high }.count) / Double(waits.count)
            #expect(abs(share - 0.25) < 0.05, "quarter \(quarter): \(share)")
        }
        // Devices that failed together do not retry together.
        #expect(Set(waits).count > 1_900)
    }

    @Test func retryAfterIsAFloor() {
        let policy = RetryPolicy(initialDelay: 1, maximumDelay: 4, jitter: true)
        var random = SplitMix(state: 7)
        for failures in 1...5 {
            #expect(policy.delay(afterFailures: failures, atLeast: 30, using: &random) == 30)
        }
    }

    @Test func waitsThatCannotBeSleptAreMadeSafe() {
        var random = SplitMix(state: 3)
        // An endless maximum caps at a century rather than overflowing a sleep.
        let endless = RetryPolicy(initialDelay: 1, maximumDelay: .infinity, jitter: false)
        #expect(endless.delay(afterFailures: 200, using: &random) == 100 * 365 * 86_400)
        // A negative or not-a-number floor, or a negative first wait, is no wait.
        let policy = RetryPolicy(initialDelay: -5, maximumDelay: 60, jitter: true)
        #expect(policy.delay(afterFailures: 1, atLeast: -30, using: &random) == 0)
        #expect(policy.delay(afterFailures: 1, atLeast: .nan, using: &random) == 0)
    }
}
