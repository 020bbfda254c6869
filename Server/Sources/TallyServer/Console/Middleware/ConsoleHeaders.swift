import HTTPTypes
import Hummingbird

/// The headers every console answer carries: nothing from another origin may load, frame the
/// page or receive a form (`default-src 'self'`, no inline script or style), the browser must
/// not guess types, and no page is cached (they show balances and ids).
struct ConsoleHeaders<Context: RequestContext>: RouterMiddleware {
    static var securityPolicy: String {
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.securityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
