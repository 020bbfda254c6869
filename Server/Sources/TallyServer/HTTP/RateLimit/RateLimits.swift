import Foundation
import TallyCore

/// The server's rate limits (docs/rate-limits.md): per user and per client address on the
/// routes that write or verify, and per client address on App Store notifications. A request
/// over a limit is 429 `rate_limited` with `Retry-After`, counted in `tally_rate_limited_total`.
struct RateLimits: Sendable {
    private let user: RateLimiter
    private let address: RateLimiter
    private let notification: RateLimiter
    private let metrics: Metrics

    init(_ limits: TallyCatalog.Limits, metrics: Metrics, now: @escaping @Sendable () -> Date) {
        user = RateLimiter(perMinute: limits.userRequestsPerMinute, now: now)
        address = RateLimiter(perMinute: limits.ipRequestsPerMinute, now: now)
        notification = RateLimiter(perMinute: limits.notificationRequestsPerMinute, now: now)
        self.metrics = metrics
    }

    /// Takes a request from the user's bucket (when there is a user), then from the client address's.
    /// - Throws: ``TallyAPIError`` `rate_limited` with `Retry-After` when a bucket is empty.
    func check(user: User?, address limitAddress: String) throws {
        if let user { try take(self.user, "user:" + user.id, limit: "user") }
        try take(address, "ip:" + limitAddress, limit: "ip")
    }

    /// Takes a notification from the client address's own bucket: the App Store posts from a
    /// few addresses, which must not share the devices' limit.
    /// - Throws: ``TallyAPIError`` `rate_limited` with `Retry-After` when the bucket is empty.
    func checkNotification(address limitAddress: String) throws {
        try take(notification, "notify:" + limitAddress, limit: "notification")
    }

    private func take(_ limiter: RateLimiter, _ key: String, limit: String) throws {
        guard let wait = limiter.take(key) else { return }
        metrics.increment("tally_rate_limited_total", ["limit": limit])
        var error = TallyAPIError(.rateLimited, "too many requests; retry in \(wait) s")
        error.retryAfter = wait
        throw error
    }
}
