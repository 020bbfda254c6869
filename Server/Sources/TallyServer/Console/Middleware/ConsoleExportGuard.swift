import Hummingbird
import TallyCore

/// Guards the CSV exports: the address carries the session's CSRF token (`?csrf=`). An
/// export is a GET that writes an audit entry, so a page elsewhere on the web (an `<img>`)
/// must not be able to run one with the operator's cookie; the console's own links carry
/// the token.
struct ConsoleExportGuard: RouterMiddleware {
    typealias Context = ConsoleOperatorContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = ConsoleQuery.value(ConsoleQuery.fields(request), "csrf"), ConstantTime.equal(token, context.csrf) else {
            throw ConsoleRefusal.exportToken
        }
        return try await next(request, context)
    }
}
