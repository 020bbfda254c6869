public import Hummingbird
import NIOCore
import TallyCore

/// The request context of the Tally server: Hummingbird's core storage, the request's
/// identifier, the client's address, and the caller once an authenticator has looked.
///
/// Bodies are read with ``TallyRequestDecoder`` and answers written with
/// ``TallyResponseEncoder``: the API's JSON, its error messages and its body limit.
public struct TallyRequestContext: RequestContext, CallerContext {
    /// Hummingbird's storage of the request's logger, parameters and route.
    public var coreContext: CoreRequestContextStorage
    /// The request's identifier: the caller's `X-Request-Id` when it is short and plain, or a new one.
    public var requestID: String
    /// The address of the connection's other end: the client, or a proxy in front of the
    /// server; "unknown" when there is none (in-memory tests).
    public let peerAddress: String
    /// The client's address, for logs, metrics and per-address limits: the peer's, or the one
    /// a trusted proxy names (see ``ClientAddressResolver``). Set once per request by the
    /// server's middleware; until then, the peer's.
    public internal(set) var clientAddress: String
    /// What per-address limits count against: an IPv4 address, or an IPv6 address's /64
    /// (one subscriber's network; its other addresses are free to take).
    var limitAddress: String
    /// The largest request body read, in bytes (the catalog's `maximum_body_bytes`); larger is 413.
    public internal(set) var maxUploadSize: Int
    /// The user whose token the request carries, set by `UserAuthenticator`; nil before it
    /// and on routes anyone may call.
    public internal(set) var identity: User?
    /// Whether the request carries the server's secret key, set by `SecretKeyAuthenticator`.
    public internal(set) var hasSecretKey: Bool

    /// A context for a request arriving on `source`'s connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        requestID = ""
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = peerAddress
        limitAddress = peerAddress
        maxUploadSize = TallyCatalog.Limits.defaults.maximumBodyBytes
        identity = nil
        hasSecretKey = false
    }

    /// Reads request bodies as the API's JSON.
    public var requestDecoder: TallyRequestDecoder { TallyRequestDecoder() }
    /// Writes answers as the API's JSON.
    public var responseEncoder: TallyResponseEncoder { TallyResponseEncoder() }

    var callingUser: User? { identity }
}
