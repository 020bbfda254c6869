import Foundation
import HTTPTypes
import Hummingbird
import TallyCore

/// Signing in to the console and out: with an operator's name and password, or with the
/// server's secret key and no name.
///
/// The session cookie holds 32 random bytes; the database keeps only their SHA-256, with the
/// session's CSRF token. Each sign-in costs a password hash, so they are limited per address
/// (here, beside the server's own limit the router adds) and a few at once.
struct ConsoleSignInController: Sendable {
    let console: ConsoleStore
    let secretKey: String?
    let origin: ConsoleOrigin
    let pages: ConsolePages
    let now: @Sendable () -> Date
    /// Sign-ins per client address: each costs a password hash.
    let limiter: RateLimiter
    let hashing = PasswordHashing()

    /// Sign-in attempts a client address may make per minute (all at once, then one every 3 s).
    static let signInsPerMinute = 20

    init(console: ConsoleStore, secretKey: String?, origin: ConsoleOrigin, pages: ConsolePages, now: @escaping @Sendable () -> Date) {
        self.console = console
        self.secretKey = secretKey
        self.origin = origin
        self.pages = pages
        self.now = now
        limiter = RateLimiter(perMinute: Self.signInsPerMinute, burst: Self.signInsPerMinute, now: now)
    }

    /// The sign-in page, for anyone.
    var pageEndpoint: RouteCollection<ConsoleRequestContext> {
        RouteCollection(context: ConsoleRequestContext.self)
            .get("login") { request, context in try signInPage(request, context) }
    }

    /// The sign-in form's POST, limited per address by the router.
    var signInEndpoint: RouteCollection<ConsoleRequestContext> {
        RouteCollection(context: ConsoleRequestContext.self)
            .post("login") { request, context in try await signIn(request, context) }
    }

    /// Signing out: a form of any operator.
    var signOutEndpoint: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .post("logout") { _, context in try await signOut(context) }
    }

    func signInPage(_ request: Request, _ context: ConsoleRequestContext) throws -> Response {
        if context.session != nil { return ConsolePages.redirect(Self.nextPath(ConsoleQuery.value(ConsoleQuery.fields(request), "next"))) }
        var view = pages.view(request, context, page: "login", title: ConsoleText.text("sign_in_title", context.language))
        if ConsoleQuery.fields(request)["signed_out"] != nil { view["notice"] = ConsoleText.text("signed_out", context.language) }
        view["action"] = Self.signInAction(request)
        return try pages.html(view, "login")
    }

    func signIn(_ request: Request, _ context: ConsoleRequestContext) async throws -> Response {
        // A sign-in form from elsewhere would sign the browser in as someone else (login CSRF).
        guard origin.sameOrigin(request, context: context) else { throw ConsoleRefusal.csrf }
        // Each attempt costs a password hash: a few a minute per address, and a few at once.
        if let wait = limiter.take(context.limitAddress) {
            var error = TallyAPIError(.rateLimited, "too many sign-ins; retry in \(wait) s")
            error.retryAfter = wait
            throw error
        }
        let form = try await ConsoleForm.read(request)
        let name = (form["operator"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form["password"] ?? ""
        var identity: (actor: String, role: ConsoleRole)?
        if name.isEmpty {
            if let secretKey, !secretKey.isEmpty, !password.isEmpty, ConstantTime.equal(password, secretKey) {
                identity = (ConsoleSessionCookie.secretKeyActor, .admin)
            }
        } else {
            let account = name.count <= 64 ? try await console.consoleOperator(name: name) : nil
            // The same work whether or not the operator exists, so the time does not tell.
            if try await hashing.verify(password, hash: account?.passwordHash ?? Self.decoyHash), let account {
                identity = (ConsoleStore.operatorActor(name), account.role)
            }
        }
        guard let identity else {
            try await console.audit(
                actor: name.isEmpty ? ConsoleSessionCookie.secretKeyActor : ConsoleStore.operatorActor(String(name.prefix(64))),
                action: "sign_in_failed", target: nil, before: nil, after: nil, detail: context.clientAddress)
            var view = pages.view(request, context, page: "login", title: ConsoleText.text("sign_in_title", context.language))
            view["error"] = ConsoleText.text("sign_in_failed", context.language)
            view["operator"] = String(name.prefix(64))
            view["action"] = Self.signInAction(request)
            return try pages.html(view, "login", status: .unauthorized)
        }
        let token = ConsoleSessionCookie.randomToken()
        let isKey = identity.actor == ConsoleSessionCookie.secretKeyActor
        try await console.openSession(
            tokenHash: ConsoleSessionCookie.hash(token), actor: identity.actor, role: identity.role, csrfToken: ConsoleSessionCookie.randomToken(),
            expiresAt: now().addingTimeInterval(ConsoleSessionCookie.lifetime), keyHash: isKey ? ConsoleSessionCookie.keyHash(secretKey) : nil)
        var response = ConsolePages.redirect(Self.nextPath(ConsoleQuery.value(ConsoleQuery.fields(request), "next")))
        let cookie = origin.cookie(ConsoleSessionCookie.name, token, maxAge: Int(ConsoleSessionCookie.lifetime), request: request, context: context)
        response.headers.append(HTTPField(name: .setCookie, value: cookie))
        return response
    }

    /// A hash checked when the operator does not exist (of a random password).
    static let decoyHash: String = (try? ConsolePasswords.hash(ConsoleSessionCookie.randomToken())) ?? ""

    /// Ends the session in the database, not only in this browser.
    func signOut(_ context: ConsoleOperatorContext) async throws -> Response {
        try await console.closeSession(tokenHash: context.sessionHash)
        var response = ConsolePages.redirect("/console/login?signed_out=1")
        response.headers.append(
            HTTPField(name: .setCookie, value: "\(ConsoleSessionCookie.name)=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict"))
        return response
    }

    /// The sign-in form's address, carrying on where to go afterwards.
    static func signInAction(_ request: Request) -> String {
        let next = nextPath(ConsoleQuery.value(ConsoleQuery.fields(request), "next"))
        return "/console/login" + (next == "/console" ? "" : ConsoleQuery.string(["next": next]))
    }

    /// Where to go after signing in: a path of the console, never another site.
    static func nextPath(_ next: String?) -> String {
        guard let next, next.hasPrefix("/console"), !next.contains("//"), !next.contains("\\"), next.count <= 2000 else { return "/console" }
        return next
    }
}
