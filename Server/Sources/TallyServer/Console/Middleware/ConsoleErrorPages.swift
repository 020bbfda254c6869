import Hummingbird

/// Answers every error of a console route with a page in the operator's language: a refusal
/// says why (403, 404, 400 with the field at fault), a database that does not answer says to
/// try again (503), never a 500. A page for operators asked for without a session is a
/// redirect to the sign-in page, which leads back to it.
struct ConsoleErrorPages: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let pages: ConsolePages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch ConsoleRefusal.signInRequired {
            return Self.signInRedirect(request)
        } catch {
            return pages.failure(error, request: request, context: context)
        }
    }

    /// To the sign-in page, then back to the page asked for (the console's overview after a form).
    static func signInRedirect(_ request: Request) -> Response {
        let next = request.method == .get ? request.uri.description : "/console"
        return ConsolePages.redirect("/console/login?next=" + ConsoleQuery.escape(next))
    }
}
