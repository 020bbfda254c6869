public import Hummingbird
import NIOCore

/// The request context of the Tally server: Hummingbird's core storage, the request's
/// identifier, and the client's address.
public struct TallyRequestContext: RequestContext {
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

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        requestID = ""
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = peerAddress
        limitAddress = peerAddress
    }
}
