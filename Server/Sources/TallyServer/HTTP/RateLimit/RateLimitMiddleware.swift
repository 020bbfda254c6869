import Hummingbird

/// Takes a request from the rate limits' buckets before the route runs (docs/rate-limits.md);
/// over a limit, the request is answered 429 `rate_limited` with `Retry-After` and goes no
/// further.
struct RateLimitMiddleware<Context: CallerContext>: RouterMiddleware {
    /// Which buckets a request takes from.
    enum Buckets: Sendable {
        /// The user's, then the client address's: the device calls that write credits or verify.
        case userAndAddress
        /// The client address's, unless the caller has the secret key: sign-ups, which grant
        /// credits, while the app's server may create users at its own pace.
        case addressUnlessSecretKey
        /// The client address's notification bucket: the App Store posts from a few addresses,
        /// which must not share the devices' limit.
        case notifications
    }

    let limits: RateLimits
    let buckets: Buckets

    /// - Parameters:
    ///   - limits: the server's buckets, shared by every route.
    ///   - buckets: which of them this group's requests take from.
    init(_ limits: RateLimits, _ buckets: Buckets) {
        self.limits = limits
        self.buckets = buckets
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch buckets {
        case .userAndAddress:
            try limits.check(user: context.callingUser, address: context.limitAddress)
        case .addressUnlessSecretKey:
            if !context.hasSecretKey { try limits.check(user: nil, address: context.limitAddress) }
        case .notifications:
            try limits.checkNotification(address: context.limitAddress)
        }
        return try await next(request, context)
    }
}
