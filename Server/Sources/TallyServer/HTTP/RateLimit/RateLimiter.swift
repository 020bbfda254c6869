import Foundation
import NIOConcurrencyHelpers

/// Token buckets by key (a user, an IP address): `perMinute` requests a minute, bursts of
/// up to `perMinute / 4` (at least 10). Per server instance: several instances each allow the
/// full rate, which is what limits against bursts need; money is protected by idempotency,
/// not by limits.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval
    }

    private let buckets = NIOLockedValueBox<[String: Bucket]>([:])
    private let rate: Double
    private let capacity: Double
    private let now: @Sendable () -> Date

    /// - Parameter burst: how many may come at once; `perMinute / 4` (at least 10) when nil.
    init(perMinute: Int, burst: Int? = nil, now: @escaping @Sendable () -> Date) {
        rate = Double(max(1, perMinute)) / 60
        capacity = burst.map { Double(max(1, $0)) } ?? max(10, Double(perMinute) / 4)
        self.now = now
    }

    /// Takes a token for `key`; when none is left, the seconds until one is.
    func take(_ key: String) -> Int? {
        let time = now().timeIntervalSince1970
        return buckets.withLockedValue { buckets in
            if buckets.count > 100_000 { buckets = buckets.filter { time - $0.value.updated < 120 } }
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: time)
            bucket.tokens = min(capacity, bucket.tokens + (time - bucket.updated) * rate)
            bucket.updated = time
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
    }
}
