public import Hummingbird
import NIOCore

/// The request context of the Tally server: Hummingbird's core storage, the request's
/// identifier, and the caller's address for rate limits.
public struct TallyRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's identifier: the caller's `X-Request-Id`, or a new one.
    public var requestID: String
    /// The caller's IP address, or "unknown".
    public let remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        requestID = ""
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
