import Hummingbird

/// A request context of the API that knows its caller: the request's identifier, what
/// per-address limits count against, and who authenticated. The router's context
/// (``TallyRequestContext``) learns these from its middleware; the contexts of authenticated
/// groups (``UserRequestContext``, ``AdminRequestContext``) copy them.
protocol CallerContext: RequestContext {
    /// The request's identifier (see ``RequestID``).
    var requestID: String { get }
    /// What per-address limits count against: an IPv4 address, or an IPv6 address's /64.
    var limitAddress: String { get }
    /// The user whose token the request carries, once ``UserAuthenticator`` has checked it.
    var callingUser: User? { get }
    /// Whether the request carries the server's secret key, once ``SecretKeyAuthenticator`` has looked.
    var hasSecretKey: Bool { get }
}
