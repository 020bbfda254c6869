import Hummingbird

/// Notes whether a request carries the server's secret key (`Authorization: Bearer <key>`),
/// the credential of the app's own server and of admins, in the context's
/// ``TallyRequestContext/hasSecretKey``; ``AdminRequestContext`` requires it.
///
/// It refuses nothing itself: on sign-ups the key is optional (it lets the app's server name
/// its users, with no per-address limit). With no secret key configured, no request has it.
struct SecretKeyAuthenticator: RouterMiddleware {
    typealias Context = TallyRequestContext
    /// The key; nil or empty turns admin and server-to-server calls off.
    let secretKey: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard carriesKey(request) else { return try await next(request, context) }
        var context = context
        context.hasSecretKey = true
        return try await next(request, context)
    }

    /// Whether the bearer token is the secret key, compared in constant time: digests byte by
    /// byte, without stopping at the first difference.
    func carriesKey(_ request: Request) -> Bool {
        guard let secretKey, !secretKey.isEmpty, let token = BearerToken.parse(request.headers[.authorization]) else { return false }
        return ConstantTime.equal(token, secretKey)
    }
}
