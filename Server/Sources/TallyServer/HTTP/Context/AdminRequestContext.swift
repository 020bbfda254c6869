import Hummingbird

/// The context of the admin routes: the caller showed the server's secret key.
///
/// Made from the router's context once ``SecretKeyAuthenticator`` has looked; a request
/// without the key is refused with 401, so a route in a group of this context cannot be
/// called without it.
struct AdminRequestContext: ChildRequestContext, CallerContext {
    var coreContext: CoreRequestContextStorage
    let requestID: String
    let limitAddress: String
    let maxUploadSize: Int

    /// The router's context, with the secret key.
    /// - Throws: ``TallyAPIError`` `unauthorized` when the request does not carry the secret key.
    init(context: TallyRequestContext) throws {
        guard context.hasSecretKey else {
            throw TallyAPIError(.unauthorized, "the secret key is required (Authorization: Bearer)")
        }
        coreContext = context.coreContext
        requestID = context.requestID
        limitAddress = context.limitAddress
        maxUploadSize = context.maxUploadSize
    }

    var requestDecoder: TallyRequestDecoder { TallyRequestDecoder() }
    var responseEncoder: TallyResponseEncoder { TallyResponseEncoder() }
    var callingUser: User? { nil }
    var hasSecretKey: Bool { true }
}
