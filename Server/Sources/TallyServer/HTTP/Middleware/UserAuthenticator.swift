import Hummingbird

/// Finds the user whose token a request carries (`Authorization: Bearer tu_…`) and puts them
/// in the context's ``TallyRequestContext/identity``, for ``UserRequestContext`` to require.
///
/// A request without a bearer token passes on without a user (the user's context then refuses
/// it); a token that belongs to no user is refused here, 401. Users are looked up by the
/// token's SHA-256, through a ``TokenCache``.
struct UserAuthenticator: RouterMiddleware {
    typealias Context = TallyRequestContext
    let users: UserStore
    let cache: TokenCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = BearerToken.parse(request.headers[.authorization]) else { return try await next(request, context) }
        var context = context
        context.identity = try await user(token)
        return try await next(request, context)
    }

    /// The token's user.
    /// - Throws: ``TallyAPIError`` `unauthorized` when the token is no user's.
    func user(_ token: String) async throws -> User {
        let hash = UserToken.hash(token)
        if let cached = cache.user(hash) { return cached }
        guard let user = try await users.user(tokenHash: hash) else {
            throw TallyAPIError(.unauthorized, "the user token is not valid")
        }
        cache.insert(user, for: hash)
        return user
    }
}
