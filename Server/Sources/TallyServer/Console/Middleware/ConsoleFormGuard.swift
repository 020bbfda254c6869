import Hummingbird
import TallyCore

/// Guards the console's forms, each of which changes something: the form comes from a page
/// of this console (`Origin`, else `Referer`; neither is a refusal), carries the session's
/// CSRF token, and the operator has the role the group needs. The form's fields go on in
/// ``ConsoleOperatorContext/form``. A refusal changes nothing (``ConsoleErrorPages`` answers it).
struct ConsoleFormGuard: RouterMiddleware {
    typealias Context = ConsoleOperatorContext
    /// The role the routes need: ``ConsoleRole/readOnly`` for any operator.
    let role: ConsoleRole
    let origin: ConsoleOrigin

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard origin.sameOrigin(request, context: context) else { throw ConsoleRefusal.csrf }
        var context = context
        context.form = try await ConsoleForm.read(request)
        guard let token = context.form["csrf"], ConstantTime.equal(token, context.csrf) else { throw ConsoleRefusal.csrf }
        guard role == .readOnly || context.session.role == .admin else { throw ConsoleRefusal.readOnly }
        return try await next(request, context)
    }
}
