import Hummingbird

/// The context of the routes only a user may call: ``user`` is the caller, never missing.
///
/// Made from the router's context once ``UserAuthenticator`` has checked the token; a request
/// that reaches it without a user is refused with 401, so a route in a group of this context
/// cannot be called without one.
struct UserRequestContext: ChildRequestContext, CallerContext {
    var coreContext: CoreRequestContextStorage
    let requestID: String
    let limitAddress: String
    let maxUploadSize: Int
    /// The user whose token the request carries.
    let user: User

    /// The router's context, with its user.
    /// - Throws: ``TallyAPIError`` `unauthorized` when the request carries no user token.
    init(context: TallyRequestContext) throws {
        guard let user = context.identity else {
            throw TallyAPIError(.unauthorized, "a user token is required (Authorization: Bearer)")
        }
        coreContext = context.coreContext
        requestID = context.requestID
        limitAddress = context.limitAddress
        maxUploadSize = context.maxUploadSize
        self.user = user
    }

    var requestDecoder: TallyRequestDecoder { TallyRequestDecoder() }
    var responseEncoder: TallyResponseEncoder { TallyResponseEncoder() }
    var callingUser: User? { user }
    var hasSecretKey: Bool { false }
}
