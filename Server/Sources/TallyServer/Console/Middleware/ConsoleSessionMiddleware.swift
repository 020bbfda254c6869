import Foundation
import HTTPTypes
import Hummingbird

/// Reads who is asking: the page's language (`?lang=` kept in a cookie for a year) and the
/// session the cookie names, into ``ConsoleRequestContext``; the routes for operators make
/// their ``ConsoleOperatorContext`` from it.
///
/// A session opened with the secret key counts only while the server has that key. When the
/// lookup itself fails (the database), the answer is the error page, as
/// ``ConsoleErrorPages`` (after this middleware) would give it.
struct ConsoleSessionMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let console: ConsoleStore
    let secretKey: String?
    let origin: ConsoleOrigin
    let pages: ConsolePages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let chosen = ConsoleQuery.fields(request)["lang"].flatMap { ConsoleText.Language(rawValue: $0) }
        context.language = chosen ?? Self.language(request)
        context.sessionHash = Self.cookieHash(request)
        var lookupFailure: (any Error)?
        do {
            if let hash = context.sessionHash { context.session = try await session(hash) }
        } catch {
            lookupFailure = error
        }
        // When the database did not answer, nothing after this middleware runs.
        var response =
            if let lookupFailure { pages.failure(lookupFailure, request: request, context: context) } else { try await next(request, context) }
        if let chosen {
            let cookie = origin.cookie(
                ConsoleSessionCookie.languageCookie, chosen.rawValue, maxAge: 365 * 86_400, request: request, context: context)
            response.headers.append(HTTPField(name: .setCookie, value: cookie))
        }
        return response
    }

    /// The session whose cookie hashes to `hash`, unless it has expired or was opened with
    /// a secret key the server no longer has.
    func session(_ hash: String) async throws -> ConsoleSession? {
        guard let session = try await console.session(tokenHash: hash) else { return nil }
        if session.actor == ConsoleSessionCookie.secretKeyActor {
            guard let kept = session.keyHash, kept == ConsoleSessionCookie.keyHash(secretKey) else { return nil }
        }
        return session
    }

    /// The SHA-256 of the session cookie's value; nil without one, or with one no session can have.
    static func cookieHash(_ request: Request) -> String? {
        guard let token = request.cookies[ConsoleSessionCookie.name]?.value, !token.isEmpty, token.utf8.count <= 128 else { return nil }
        return ConsoleSessionCookie.hash(token)
    }

    /// The language without `?lang=`: the cookie, else `Accept-Language`, else English.
    static func language(_ request: Request) -> ConsoleText.Language {
        if let kept = request.cookies[ConsoleSessionCookie.languageCookie].flatMap({ ConsoleText.Language(rawValue: $0.value) }) { return kept }
        if let accepted = request.headers[.acceptLanguage]?.lowercased(), accepted.hasPrefix("uk") { return .uk }
        return .en
    }
}
