import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import TallyCore

/// The console's session cookie: its name, and what the database keeps of its value.
public enum ConsoleSessionCookie: Sendable {
    public static let name = "tally_console"

    /// The SHA-256 of a cookie's value, as `console_sessions.token_hash` keeps it.
    public static func hash(_ value: String) -> String {
        SHA256.hash(data: Data(value.utf8)).withUnsafeBytes { Hex.lowercase($0) }
    }
}

/// The web console under `/console`: server-rendered pages over the same storage as the API.
///
/// Who may come in: an operator with their password, or anyone with the server's secret key.
/// The session cookie holds 32 random bytes; the database keeps only their SHA-256, with the
/// session's CSRF token. Every state-changing form must carry that token and come from this
/// console's origin (`Origin`, else `Referer`; a request with neither is refused). Handlers
/// never throw: every refusal is a page with a message and nothing changed.
struct ConsoleController: Sendable {
    let storage: any TallyStorage
    let console: any ConsoleStorage
    let catalog: TallyCatalog
    let secretKey: String?
    let trustedProxies: TrustedProxies
    let now: @Sendable () -> Date
    let library: MustacheLibrary
    /// Sign-ins per client address: each costs a password hash.
    let signInLimiter: RateLimiter
    let hashing = PasswordHashing()

    /// How long a session lasts.
    static let sessionLifetime: TimeInterval = 12 * 3600
    static let sessionCookie = ConsoleSessionCookie.name
    static let languageCookie = "tally_console_lang"
    /// Sign-in attempts a client address may make per minute (all at once, then one every 3 s).
    static let signInsPerMinute = 20

    init(
        storage: any TallyStorage, console: any ConsoleStorage, catalog: TallyCatalog, secretKey: String?, trustedProxies: TrustedProxies,
        now: @escaping @Sendable () -> Date
    ) {
        self.storage = storage
        self.console = console
        self.catalog = catalog
        self.secretKey = secretKey
        self.trustedProxies = trustedProxies
        self.now = now
        signInLimiter = RateLimiter(perMinute: Self.signInsPerMinute, burst: Self.signInsPerMinute, now: now)
        do {
            library = try ConsoleTemplates.library()
        } catch {
            // The templates are constants of this file's module; a test renders every one.
            preconditionFailure("the console's templates do not parse: \(error)")
        }
    }

    var endpoints: RouteCollection<TallyRequestContext> {
        RouteCollection(context: TallyRequestContext.self)
            .get("assets/console.css") { _, _ in Self.stylesheet() }
            .get("login") { request, context in await respond(request, context) { try await signInPage(request, &$0) } }
            .get("/") { request, context in await signedIn(request, context) { try await overviewPage(request, $0) } }
            .get("transactions") { request, context in await signedIn(request, context) { try await transactionsPage(request, $0) } }
            .get("transactions.csv") { request, context in await exporting(request, context) { try await transactionsCSV(request, $0) } }
            .get("ledger") { request, context in await signedIn(request, context) { try await ledgerPage(request, $0) } }
            .get("ledger.csv") { request, context in await exporting(request, context) { try await ledgerCSV(request, $0) } }
            .get("users/:id") { request, context in
                await signedIn(request, context) { try await userPage(request, $0, id: try Self.identifier(context.parameters.require("id"))) }
            }
            .get("products") { request, context in await signedIn(request, context) { try productsPage(request, $0) } }
            .get("notifications") { request, context in await signedIn(request, context) { try await notificationsPage(request, $0) } }
            .get("notifications.csv") { request, context in await exporting(request, context) { try await notificationsCSV(request, $0) } }
            .get("notifications/:uuid") { request, context in
                await signedIn(request, context) { try await notificationPage(request, $0, uuid: try Self.identifier(context.parameters.require("uuid"))) }
            }
            .get("audit") { request, context in await signedIn(request, context) { try await auditPage(request, $0) } }
            .get("audit.csv") { request, context in await exporting(request, context) { try await auditCSV(request, $0) } }
            .get("search") { request, context in await signedIn(request, context) { try await search(request, $0) } }
            .post("logout") { request, context in await changing(request, context, role: .readOnly) { try await signOut(request, $0) } }
            .post("users/:id/adjustments") { request, context in
                await changing(request, context, role: .admin) { try await adjust(request, $0, id: try Self.identifier(context.parameters.require("id"))) }
            }
            .post("users/:id/entitlements") { request, context in
                await changing(request, context, role: .admin) { try await grant(request, $0, id: try Self.identifier(context.parameters.require("id"))) }
            }
            .post("users/:id/entitlements/:grant/revoke") { request, context in
                await changing(request, context, role: .admin) {
                    try await revoke(
                        request, $0, id: try Self.identifier(context.parameters.require("id")),
                        grantID: try Self.identifier(context.parameters.require("grant")))
                }
            }
    }

    /// The sign-in form's POST, limited per address by the router.
    var signInEndpoint: RouteCollection<TallyRequestContext> {
        RouteCollection(context: TallyRequestContext.self)
            .post("login") { request, context in await respond(request, context) { try await signIn(request, context, &$0) } }
    }

    // MARK: - The request's frame

    /// What every handler knows: the language, the session (when signed in), the form's fields.
    struct Visit {
        var language: ConsoleText.Language
        var session: ConsoleSession?
        var sessionHash: String?
        var form: [String: String] = [:]
        /// Cookies to set on the answer.
        var cookies: [String] = []

        /// The session's CSRF token, for the forms and export links of a signed-in page.
        var csrf: String { session?.csrfToken ?? "" }
    }

    /// Runs a handler with the visit's language; any error becomes a page.
    func respond(_ request: Request, _ context: TallyRequestContext, _ work: (inout Visit) async throws -> Response) async -> Response {
        var visit = Visit(language: language(request), session: nil)
        if let chosen = Self.query(request)["lang"].flatMap({ ConsoleText.Language(rawValue: $0) }) {
            visit.cookies.append(cookie(Self.languageCookie, chosen.rawValue, maxAge: 365 * 86_400, request: request, context: context))
        }
        var response: Response
        do {
            response = try await work(&visit)
        } catch {
            response = failure(error, request: request, visit: visit)
        }
        for cookie in visit.cookies { response.headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return response
    }

    /// A page for signed-in operators only; others go to the sign-in page.
    func signedIn(_ request: Request, _ context: TallyRequestContext, _ work: @escaping (Visit) async throws -> Response) async -> Response {
        await respond(request, context) { visit in
            try await loadSession(request, &visit)
            guard visit.session != nil else { return signInRedirect(request) }
            return try await work(visit)
        }
    }

    /// A CSV export: signed in, and the address carries the session's CSRF token. An export is
    /// a GET that writes an audit entry, so a page elsewhere on the site (an `<img>`) must not
    /// be able to run one with the operator's cookie; the console's own links carry the token.
    func exporting(_ request: Request, _ context: TallyRequestContext, _ work: @escaping (Visit) async throws -> Response) async -> Response {
        await signedIn(request, context) { visit in
            guard let token = Self.value(Self.query(request), "csrf"), ConstantTime.equal(token, visit.session!.csrfToken) else {
                throw ConsoleRefusal.exportToken
            }
            return try await work(visit)
        }
    }

    /// A form that changes something: signed in, from this origin, with the session's CSRF
    /// token, and with the role it needs.
    func changing(
        _ request: Request, _ context: TallyRequestContext, role: ConsoleRole, _ work: @escaping (Visit) async throws -> Response
    ) async -> Response {
        await respond(request, context) { visit in
            try await loadSession(request, &visit)
            guard let session = visit.session else { return signInRedirect(request) }
            guard sameOrigin(request, https: overHTTPS(request, peer: context.peerAddress)) else { throw ConsoleRefusal.csrf }
            visit.form = try await Self.form(request)
            guard let token = visit.form["csrf"], ConstantTime.equal(token, session.csrfToken) else { throw ConsoleRefusal.csrf }
            if role == .admin, session.role != .admin { throw ConsoleRefusal.readOnly }
            return try await work(visit)
        }
    }

    enum ConsoleRefusal: Error {
        case csrf, readOnly, notFound, busy, exportToken
    }

    func loadSession(_ request: Request, _ visit: inout Visit) async throws {
        guard let token = request.cookies[Self.sessionCookie]?.value, !token.isEmpty, token.utf8.count <= 128 else { return }
        let hash = Self.digest(token)
        visit.sessionHash = hash
        guard let session = try await console.session(tokenHash: hash) else { return }
        // A session opened with the secret key ends when the key changes or is removed.
        if session.actor == Self.secretKeyActor, session.keyHash == nil || session.keyHash != secretKeyHash { return }
        visit.session = session
    }

    static let secretKeyActor = "secret-key"

    /// The SHA-256 of the secret key, kept with the sessions it opened.
    var secretKeyHash: String? { secretKey.flatMap { $0.isEmpty ? nil : Self.digest($0) } }

    func signInRedirect(_ request: Request) -> Response {
        let next = request.method == .get ? request.uri.description : "/console"
        return Self.redirect("/console/login?next=" + Self.queryEscape(next))
    }

    /// Whether a form comes from a page of this console: its `Origin` (else its `Referer`)
    /// names the host the request was sent to. Neither header, or `null`, is a refusal.
    func sameOrigin(_ request: Request, https: Bool = false) -> Bool {
        guard let host = request.head.authority, !host.isEmpty else { return false }
        // Only a web address counts: `null` (a sandboxed or opaque origin) and anything else is refused.
        let claimed = request.headers[.origin] ?? request.headers[.referer]
        guard let claimed, let url = URL(string: claimed), let claimedHost = url.host, let scheme = url.scheme?.lowercased(),
            scheme == "https" || (scheme == "http" && !https), url.user == nil, url.password == nil
        else { return false }
        // `URL.host` gives an IPv6 address without the brackets that `Host` keeps (`[::1]:8080`).
        let bare = claimedHost.hasPrefix("[") && claimedHost.hasSuffix("]") ? String(claimedHost.dropFirst().dropLast()) : claimedHost
        let written = bare.contains(":") ? "[\(bare)]" : bare
        let authority = url.port.map { "\(written):\($0)" } ?? written
        return authority.lowercased() == host.lowercased()
    }

    /// The console's language: `?lang=`, else the cookie, else `Accept-Language`, else English.
    func language(_ request: Request) -> ConsoleText.Language {
        if let chosen = Self.query(request)["lang"].flatMap({ ConsoleText.Language(rawValue: $0) }) { return chosen }
        if let kept = request.cookies[Self.languageCookie].flatMap({ ConsoleText.Language(rawValue: $0.value) }) { return kept }
        if let accepted = request.headers[.acceptLanguage]?.lowercased(), accepted.hasPrefix("uk") { return .uk }
        return .en
    }

    /// Whether the browser reached the server over HTTPS: only a trusted proxy can say so.
    func overHTTPS(_ request: Request, peer: String) -> Bool {
        guard let peer = IPAddress(peer), trustedProxies.contains(peer) else { return false }
        if let proto = request.headers[HTTPField.Name("X-Forwarded-Proto")!] {
            return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
        }
        return request.headers[.forwarded]?.lowercased().contains("proto=https") ?? false
    }

    func cookie(_ name: String, _ value: String, maxAge: Int, request: Request, context: TallyRequestContext) -> String {
        "\(name)=\(value); Path=/console; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (overHTTPS(request, peer: context.peerAddress) ? "; Secure" : "")
    }

    // MARK: - Sign-in and sign-out

    func signInPage(_ request: Request, _ visit: inout Visit) async throws -> Response {
        try await loadSession(request, &visit)
        if visit.session != nil { return Self.redirect(Self.nextPath(Self.value(Self.query(request), "next"))) }
        var view = base(request, visit, page: "login", title: ConsoleText.text("sign_in_title", visit.language))
        if Self.query(request)["signed_out"] != nil { view["notice"] = ConsoleText.text("signed_out", visit.language) }
        view["action"] = Self.signInAction(request)
        return try html(view, "login")
    }

    func signIn(_ request: Request, _ context: TallyRequestContext, _ visit: inout Visit) async throws -> Response {
        guard sameOrigin(request, https: overHTTPS(request, peer: context.peerAddress)) else { throw ConsoleRefusal.csrf }
        // Each attempt costs a password hash: a few a minute per address, and a few at once.
        if let wait = signInLimiter.take(context.limitAddress) {
            var error = TallyAPIError(.rateLimited, "too many sign-ins; retry in \(wait) s")
            error.retryAfter = wait
            throw error
        }
        visit.form = try await Self.form(request)
        let name = (visit.form["operator"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = visit.form["password"] ?? ""
        var identity: (actor: String, role: ConsoleRole)?
        if name.isEmpty {
            if let secretKey, !secretKey.isEmpty, !password.isEmpty, ConstantTime.equal(password, secretKey) { identity = (Self.secretKeyActor, .admin) }
        } else {
            let account = name.count <= 64 ? try await console.consoleOperator(name: name) : nil
            // The same work whether or not the operator exists, so the time does not tell.
            if try await hashing.verify(password, hash: account?.passwordHash ?? Self.decoyHash), let account {
                identity = (SQLStorage.operatorActor(name), account.role)
            }
        }
        guard let identity else {
            try await console.audit(
                actor: name.isEmpty ? "secret-key" : SQLStorage.operatorActor(String(name.prefix(64))), action: "sign_in_failed",
                target: nil, before: nil, after: nil, detail: context.clientAddress)
            var view = base(request, visit, page: "login", title: ConsoleText.text("sign_in_title", visit.language))
            view["error"] = ConsoleText.text("sign_in_failed", visit.language)
            view["operator"] = String(name.prefix(64))
            view["action"] = Self.signInAction(request)
            return try html(view, "login", status: .unauthorized)
        }
        let token = Self.randomToken()
        try await console.openSession(
            tokenHash: Self.digest(token), actor: identity.actor, role: identity.role, csrfToken: Self.randomToken(),
            expiresAt: now().addingTimeInterval(Self.sessionLifetime), keyHash: identity.actor == Self.secretKeyActor ? secretKeyHash : nil)
        visit.cookies.append(cookie(Self.sessionCookie, token, maxAge: Int(Self.sessionLifetime), request: request, context: context))
        return Self.redirect(Self.nextPath(Self.value(Self.query(request), "next")))
    }

    /// A hash checked when the operator does not exist (of a random password).
    static let decoyHash: String = (try? ConsolePasswords.hash(randomToken())) ?? ""

    func signOut(_ request: Request, _ visit: Visit) async throws -> Response {
        if let hash = visit.sessionHash { try await console.closeSession(tokenHash: hash) }
        var response = Self.redirect("/console/login?signed_out=1")
        response.headers.append(HTTPField(name: .setCookie, value: "\(Self.sessionCookie)=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict"))
        return response
    }

    /// The sign-in form's address, carrying on where to go afterwards.
    static func signInAction(_ request: Request) -> String {
        let next = nextPath(value(query(request), "next"))
        return "/console/login" + (next == "/console" ? "" : queryString(["next": next]))
    }

    /// Where to go after signing in: a path of the console, never another site.
    static func nextPath(_ next: String?) -> String {
        guard let next, next.hasPrefix("/console"), !next.contains("//"), !next.contains("\\"), next.count <= 2000 else { return "/console" }
        return next
    }

    // MARK: - Pages

    func overviewPage(_ request: Request, _ visit: Visit) async throws -> Response {
        let windows: [(String, TimeInterval)] = [("1d", 86_400), ("7d", 7 * 86_400), ("30d", 30 * 86_400), ("90d", 90 * 86_400)]
        let chosen = Self.query(request)["window"] ?? "30d"
        guard let window = windows.first(where: { $0.0 == chosen }) else {
            throw TallyAPIError(.invalidRequest, "window must be 1d, 7d, 30d or 90d")
        }
        // Up to and including this millisecond.
        let to = now().addingTimeInterval(0.001)
        let environment = Self.value(Self.query(request), "environment")
        guard environment == nil || Self.environments.contains(environment!) else {
            throw TallyAPIError(.invalidRequest, "environment must be one of \(Self.environments.joined(separator: ", "))")
        }
        let overview = try await console.overview(from: to.addingTimeInterval(-window.1), to: to, environment: environment)
        let language = visit.language
        var view = base(request, visit, page: "overview", title: ConsoleText.text("nav_overview", language))
        view["windows"] = windows.map { ["value": $0.0, "label": ConsoleText.text("window_\($0.0)", language), "selected": $0.0 == chosen] }
        view["environments"] = Self.environments.map { Self.option($0, $0, environment) }
        view["from"] = ConsoleFormat.time(overview.from)
        view["to"] = ConsoleFormat.time(overview.to)
        view["purchases"] = overview.purchases
        view["refunds"] = overview.refunds
        view["failureCount"] = overview.verificationFailures.reduce(0) { $0 + $1.count }
        view["chart"] = ConsoleChart().view(overview.days, language: language)
        view["revenue"] = overview.revenue.map { revenue -> [String: Any] in
            [
                "currency": revenue.currency ?? "—", "storefront": revenue.storefront ?? "—", "count": revenue.count,
                "amount": ConsoleFormat.milliunits(revenue.milliunits),
            ]
        }
        view["refunded"] = overview.refunded.map { revenue -> [String: Any] in
            ["currency": revenue.currency ?? "—", "count": revenue.count, "amount": ConsoleFormat.milliunits(revenue.milliunits)]
        }
        let movement = { (movement: ConsoleOverview.Movement) -> [String: Any] in
            ["currency": movement.currency, "kind": movement.kind, "count": movement.count, "amount": ConsoleFormat.signed(movement.amount)]
        }
        view["movements"] = overview.movements.map(movement)
        view["debt"] = overview.debt.map { ["currency": $0.currency, "count": $0.count, "amount": $0.amount] as [String: Any] }
        view["failures"] = overview.verificationFailures.map(movement)
        return try html(view, "overview")
    }

    func transactionsPage(_ request: Request, _ visit: Visit) async throws -> Response {
        let language = visit.language
        var view = base(request, visit, page: "transactions", title: ConsoleText.text("nav_transactions", language))
        let filters = TransactionFilters(Self.query(request))
        view["filter"] = filters.fields
        view["limit"] = filters.limit
        view["kinds"] = ProductKind.all.map { Self.option($0.rawValue, $0.rawValue, filters.fields["kind"]) }
        view["statuses"] = ["granted", "revoked", "refunded", "unbound"].map {
            Self.option($0, ConsoleText.text("status_\($0)", language), filters.fields["status"])
        }
        view["environments"] = Self.environments.map { Self.option($0, $0, filters.fields["environment"]) }
        view["products"] = catalog.products.map { Self.option($0.productID, $0.productID, filters.fields["product"]) }
        view["exportHref"] = "/console/transactions.csv" + filters.queryString(excluding: ["after", "limit"], replacing: ["csrf": visit.csrf])
        return try await listPage(view, "transactions", language) { view in
            let page = try await storage.adminTransactions(try filters.query(language))
            view["rows"] = page.transactions.map { transactionRow($0, language) }
            if let next = page.nextCursor { view["nextHref"] = "/console/transactions" + filters.queryString(replacing: ["after": next]) }
            if filters.fields["after"] != nil { view["firstHref"] = "/console/transactions" + filters.queryString(excluding: ["after"]) }
        }
    }

    /// A list page: `fill` adds the rows and paging links; a filter the query refuses shows the
    /// page with the reason and no rows (400), so the form is there to correct it.
    func listPage(
        _ view: [String: Any], _ template: String, _ language: ConsoleText.Language, _ fill: (inout [String: Any]) async throws -> Void
    ) async throws -> Response {
        var view = view
        do {
            try await fill(&view)
            return try html(view, template)
        } catch let error as TallyAPIError where error.code == .invalidRequest {
            view["error"] = "\(ConsoleText.text("filter_invalid", language)): \(error.message)"
            view["rows"] = [[String: Any]]()
            return try html(view, template, status: .badRequest)
        }
    }

    func transactionRow(_ transaction: AdminTransaction, _ language: ConsoleText.Language) -> [String: Any] {
        var status = transaction.status
        if status == "revoked", transaction.revocationReason != nil { status = "refunded" }
        var row: [String: Any] = [
            "transactionID": transaction.transactionID, "originalTransactionID": transaction.originalTransactionID,
            "productID": transaction.productID, "kind": transaction.type, "status": status,
            "statusLabel": ConsoleText.text("status_\(status)", language), "environment": transaction.environment,
            "price": transaction.price.map { "\(ConsoleFormat.milliunits($0)) \(transaction.currency ?? "")" } ?? "",
            "purchased": transaction.purchaseDate.map(ConsoleFormat.time) ?? "—", "receivedAt": ConsoleFormat.time(transaction.receivedAt),
        ]
        if let user = transaction.userID { row["userID"] = user }
        if let revoked = transaction.revokedAt { row["revokedAt"] = ConsoleFormat.time(revoked) }
        return row
    }

    func ledgerPage(_ request: Request, _ visit: Visit) async throws -> Response {
        let language = visit.language
        var view = base(request, visit, page: "ledger", title: ConsoleText.text("nav_ledger", language))
        let filters = LedgerFilters(Self.query(request))
        view["filter"] = filters.fields
        view["limit"] = filters.limit
        view["currencies"] = catalog.currencies.map { Self.option($0.code, $0.code, filters.fields["currency"]) }
        view["kinds"] = LedgerEntryKind.all.map { Self.option($0.rawValue, $0.rawValue, filters.fields["kind"]) }
        view["exportHref"] = "/console/ledger.csv" + filters.queryString(excluding: ["before", "limit"], replacing: ["csrf": visit.csrf])
        return try await listPage(view, "ledger", language) { view in
            let page = try await console.ledgerEntries(try filters.query())
            view["rows"] = page.rows.map { row -> [String: Any] in
                [
                    "id": row.entry.id, "at": ConsoleFormat.time(row.entry.createdAt), "userID": row.userID, "currency": row.entry.currency,
                    "kind": row.entry.kind.rawValue, "bucket": row.entry.bucket.rawValue, "amount": ConsoleFormat.signed(row.entry.amount),
                    "transactionID": row.entry.transactionID ?? "", "reference": row.entry.reference ?? "",
                ]
            }
            if let next = page.next { view["nextHref"] = "/console/ledger" + filters.queryString(replacing: ["before": next.text]) }
            if filters.fields["before"] != nil { view["firstHref"] = "/console/ledger" + filters.queryString(excluding: ["before"]) }
        }
    }

    func userPage(
        _ request: Request, _ visit: Visit, id: String, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    )
        async throws -> Response
    {
        let language = visit.language
        guard id.count <= 128, let account = try? await storage.adminUser(id: id) else { throw ConsoleRefusal.notFound }
        var view = base(request, visit, page: "user", title: "\(ConsoleText.text("user_title", language)) \(id)")
        if let notice { view["notice"] = notice }
        if let error { view["error"] = error }
        view["account"] = [
            "userID": account.userID, "appUserID": account.appUserID ?? "—", "appAccountToken": account.appAccountToken.uuidString.lowercased(),
            "created": ConsoleFormat.time(account.createdAt),
        ]
        let names = Dictionary(catalog.currencies.map { ($0.code, $0.names[language.rawValue] ?? $0.code) }, uniquingKeysWith: { first, _ in first })
        view["balances"] = account.balances.map { balance -> [String: Any] in
            [
                "currency": balance.currency, "name": "\(names[balance.currency] ?? balance.currency) (\(balance.currency))",
                "available": balance.available, "held": balance.held, "debt": balance.debt, "spendable": balance.spendable,
                "allowance": balance.allowance.map { "\($0.granted - $0.used - $0.held) / \($0.granted) → \(ConsoleFormat.time($0.periodEnd))" } ?? "",
            ]
        }
        let yes = ConsoleText.text("yes", language)
        let no = ConsoleText.text("no", language)
        view["entitlements"] = account.entitlements.map { entitlement -> [String: Any] in
            [
                "id": entitlement.id, "active": entitlement.active ? yes : no, "productID": entitlement.productID,
                "expires": entitlement.expiresAt.map(ConsoleFormat.time) ?? "—",
            ]
        }
        view["subscriptions"] = account.subscriptions.map { subscription -> [String: Any] in
            [
                "originalTransactionID": subscription.originalTransactionID, "productID": subscription.productID,
                "status": subscription.status.rawValue, "expires": subscription.expiresAt.map(ConsoleFormat.time) ?? "—",
                "willRenew": subscription.willRenew.map { $0 ? yes : no } ?? "—",
            ]
        }
        let canChange = visit.session?.role == .admin
        view["grants"] = try await console.grantedEntitlements(userID: id).map { grant -> [String: Any] in
            [
                "id": grant.id, "userID": id, "entitlement": grant.entitlement, "until": ConsoleFormat.time(grant.expiresAt),
                "reason": grant.reason, "grantedBy": grant.grantedBy,
                "revoked": grant.revokedAt.map { "\(ConsoleFormat.time($0)) (\(grant.revokedBy ?? ""))" } ?? "",
                "revocable": canChange && grant.revokedAt == nil && grant.expiresAt > now(),
            ]
        }
        view["currencyOptions"] = catalog.currencies.map { ["value": $0.code, "label": "\(names[$0.code] ?? $0.code) (\($0.code))"] }
        view["entitlementOptions"] = Array(Set(catalog.products.flatMap(\.entitlements))).sorted()
        view["adjustKey"] = UUID().uuidString.lowercased()
        view["grantKey"] = UUID().uuidString.lowercased()
        view["timeline"] = try await console.timeline(userID: id, limit: 200).map { event -> [String: Any] in
            var row: [String: Any] = [
                "kind": event.kind, "kindLabel": ConsoleText.text("kind_\(event.kind)", language), "at": ConsoleFormat.time(event.at),
                "summary": Self.eventSummary(event, language), "detail": Self.eventDetail(event, language),
            ]
            if let transaction = event.transactionID { row["transactionID"] = transaction }
            return row
        }
        return try html(view, "user", status: status)
    }

    /// A timeline event's summary in the page's language: a grant says until when.
    static func eventSummary(_ event: ConsoleEvent, _ language: ConsoleText.Language) -> String {
        guard let until = event.until else { return event.summary }
        return "\(event.summary) \(ConsoleText.text("event_until", language)) \(ConsoleFormat.time(until))"
    }

    /// A timeline event's detail in the page's language: the environment and arrival of a
    /// purchase, the reason of a refund, else the text kept with the event.
    static func eventDetail(_ event: ConsoleEvent, _ language: ConsoleText.Language) -> String {
        var parts: [String] = []
        if let environment = event.environment {
            parts.append(environments.contains(environment) ? ConsoleText.text("environment_\(environment)", language) : environment)
        }
        if let received = event.receivedAt { parts.append("\(ConsoleText.text("event_received", language)) \(ConsoleFormat.time(received))") }
        if let reason = event.revocationReason {
            parts.append(
                [0, 1].contains(reason)
                    ? ConsoleText.text("revocation_reason_\(reason)", language)
                    : "\(ConsoleText.text("revocation_reason", language)) \(reason)")
        }
        if let detail = event.detail { parts.append(detail) }
        return parts.joined(separator: " · ")
    }

    func productsPage(_ request: Request, _ visit: Visit) throws -> Response {
        var view = base(request, visit, page: "products", title: ConsoleText.text("nav_products", visit.language))
        view["bundleID"] = catalog.app.bundleID
        view["environmentsText"] = catalog.app.environments.joined(separator: ", ")
        view["currencyRows"] = catalog.currencies.map { ["code": $0.code, "en": $0.names["en"] ?? "", "uk": $0.names["uk"] ?? ""] }
        view["rows"] = catalog.products.map { product -> [String: Any] in
            var row: [String: Any] = [
                "productID": product.productID, "kind": product.kind.rawValue,
                "grants": product.grants.map { "\($0.amount) \($0.currency)" }.joined(separator: ", "),
                "entitlements": product.entitlements.joined(separator: ", ")
                    + (product.durationDays.map { " (\($0) d)" } ?? ""),
                "allowance": product.allowance.map { "\($0.amount) \($0.currency) / \($0.per.rawValue)" } ?? "",
            ]
            for language in ["en", "uk"] {
                if let text = product.paywall[language] {
                    row[language] = ["title": text.title, "description": text.description, "benefits": text.benefits] as [String: Any]
                }
            }
            return row
        }
        return try html(view, "products")
    }

    func notificationsPage(_ request: Request, _ visit: Visit) async throws -> Response {
        let language = visit.language
        var view = base(request, visit, page: "notifications", title: ConsoleText.text("nav_notifications", language))
        let parameters = Self.query(request)
        let outcome = Self.value(parameters, "outcome")
        let limit = try Self.limit(parameters)
        view["limit"] = limit
        view["outcomes"] = ["applied", "duplicate", "recorded"].map { Self.option($0, $0, outcome) }
        guard outcome == nil || NotificationOutcome(rawValue: outcome!) != nil else {
            throw TallyAPIError(.invalidRequest, "outcome must be applied, duplicate or recorded")
        }
        let cursor = try Self.value(parameters, "after").map { text in
            guard let cursor = AdminCursor(text: text) else { throw TallyAPIError(.invalidRequest, "after is not a position of this list") }
            return cursor
        }
        let page = try await storage.adminNotifications(outcome: outcome, limit: limit, cursor: cursor)
        view["rows"] = page.notifications.map { notification -> [String: Any] in
            [
                "uuid": notification.notificationUuid, "received": ConsoleFormat.time(notification.receivedAt),
                "type": notification.notificationType + (notification.subtype.map { " / \($0)" } ?? ""), "outcome": notification.outcome,
                "transactionID": notification.transactionID ?? "", "detail": notification.detail ?? "",
            ]
        }
        let refused = try await console.verificationFailures(from: now().addingTimeInterval(-30 * 86_400), to: now())
            .filter { $0.currency == "notification" }.reduce(0) { $0 + $1.count }
        view["refused"] = refused
        var kept: [String: String] = ["limit": String(limit)]
        if let outcome { kept["outcome"] = outcome }
        if let next = page.nextCursor {
            view["nextHref"] = "/console/notifications" + Self.queryString(kept.merging(["after": next]) { $1 })
        }
        if cursor != nil { view["firstHref"] = "/console/notifications" + Self.queryString(kept) }
        view["exportHref"] = "/console/notifications.csv" + Self.queryString((outcome.map { ["outcome": $0] } ?? [:]).merging(["csrf": visit.csrf]) { $1 })
        return try html(view, "notifications")
    }

    func notificationPage(_ request: Request, _ visit: Visit, uuid: String) async throws -> Response {
        guard uuid.count <= 64, let stored = try await console.notification(uuid: uuid) else { throw ConsoleRefusal.notFound }
        var view = base(request, visit, page: "notification", title: "\(ConsoleText.text("notification_title", visit.language)) \(uuid)")
        let notification = stored.notification
        view["uuid"] = notification.notificationUuid
        view["type"] = notification.notificationType + (notification.subtype.map { " / \($0)" } ?? "")
        view["outcome"] = notification.outcome + (notification.detail.map { ": \($0)" } ?? "")
        view["environment"] = stored.environment ?? "—"
        if let transaction = notification.transactionID { view["transactionID"] = transaction }
        view["signed"] = stored.signedDate.map(ConsoleFormat.time) ?? "—"
        view["received"] = ConsoleFormat.time(notification.receivedAt)
        var parts: [[String: Any]] = []
        if let payload = Self.jwsPayload(stored.jws) {
            parts.append(["name": "notification", "json": Self.pretty(payload)])
            let data = payload["data"] as? [String: Any]
            for key in ["signedTransactionInfo", "signedRenewalInfo"] {
                if let jws = data?[key] as? String, let inner = Self.jwsPayload(jws) { parts.append(["name": key, "json": Self.pretty(inner)]) }
            }
        }
        view["parts"] = parts
        return try html(view, "notification")
    }

    func auditPage(_ request: Request, _ visit: Visit) async throws -> Response {
        var view = base(request, visit, page: "audit", title: ConsoleText.text("nav_audit", visit.language))
        let parameters = Self.query(request)
        let limit = try Self.limit(parameters)
        let before = try Self.value(parameters, "before").map { text in
            guard let id = Int64(text), id > 0 else { throw TallyAPIError(.invalidRequest, "before must be a positive entry number") }
            return id
        }
        let page = try await console.auditLog(limit: limit, before: before)
        view["exportHref"] = "/console/audit.csv" + Self.queryString(["csrf": visit.csrf])
        view["rows"] = page.entries.map(Self.auditRow)
        if let next = page.next { view["nextHref"] = "/console/audit" + Self.queryString(["before": String(next), "limit": String(limit)]) }
        if before != nil { view["firstHref"] = "/console/audit" + Self.queryString(["limit": String(limit)]) }
        return try html(view, "audit")
    }

    static func auditRow(_ entry: ConsoleAuditEntry) -> [String: Any] {
        [
            "id": entry.id, "at": ConsoleFormat.time(entry.at), "actor": entry.actor, "action": entry.action, "target": entry.target ?? "",
            "before": entry.before ?? "", "after": entry.after ?? "", "detail": entry.detail ?? "",
        ]
    }

    /// Finds what the text names: a user (their page), else transactions (the filtered list).
    func search(_ request: Request, _ visit: Visit) async throws -> Response {
        let text = (Self.value(Self.query(request), "q") ?? "").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.count <= 200 else { return Self.redirect("/console/transactions") }
        let matches = try await console.findUsers(text)
        if matches.count == 1 { return Self.redirect("/console/users/" + Self.pathEscape(matches[0].userID)) }
        guard !matches.isEmpty else { return Self.redirect("/console/transactions" + Self.queryString(["q": text])) }
        // Several users have this text as one id or another: the operator chooses, best match first.
        let language = visit.language
        var view = base(request, visit, page: "search", title: ConsoleText.text("search_choose_title", language))
        view["text"] = text
        view["matches"] = matches.map { match -> [String: Any] in
            [
                "href": "/console/users/" + Self.pathEscape(match.userID), "userID": match.userID,
                "field": ConsoleText.text(Self.matchKeys[match.field] ?? "user_id", language),
            ]
        }
        view["transactionsHref"] = "/console/transactions" + Self.queryString(["q": text])
        return try html(view, "search")
    }

    /// The text naming each field a search matches.
    static let matchKeys: [ConsoleUserMatch.Field: String] = [.userID: "user_id", .appAccountToken: "app_account_token", .appUserID: "app_user_id"]

    // MARK: - Actions

    func adjust(_ request: Request, _ visit: Visit, id: String) async throws -> Response {
        let language = visit.language
        let form = visit.form
        let text = (form["amount"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let amount = ConsoleFormat.parseAmount(text) else {
            return try await userPage(request, visit, id: id, error: ConsoleText.text("amount_invalid", language), status: .badRequest)
        }
        do {
            let result = try await console.consoleAdjust(
                actor: visit.session!.actor, userID: id, amount: Amount(currency: form["currency"] ?? "", amount: amount),
                reason: (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines), idempotencyKey: form["idempotency_key"] ?? "")
            return try await userPage(
                request, visit, id: id, notice: ConsoleText.text(result.replayed ? "adjust_replayed" : "adjusted", language))
        } catch let error as TallyAPIError where error.status.code < 500 && error.code != .notFound {
            return try await userPage(request, visit, id: id, error: Self.message(error, visit.language), status: .init(code: error.status.code))
        }
    }

    func grant(_ request: Request, _ visit: Visit, id: String) async throws -> Response {
        let language = visit.language
        let form = visit.form
        guard let day = form["until"].flatMap(ConsoleFormat.parseDay) else {
            return try await userPage(request, visit, id: id, error: ConsoleText.text("date_invalid", language), status: .badRequest)
        }
        do {
            // Until the end of the day chosen, in UTC.
            let result = try await console.grantEntitlement(
                actor: visit.session!.actor, userID: id, entitlement: form["entitlement"] ?? "", until: day.addingTimeInterval(86_400),
                reason: (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines), idempotencyKey: form["idempotency_key"] ?? "")
            return try await userPage(
                request, visit, id: id, notice: ConsoleText.text(result.replayed ? "grant_replayed" : "granted", language))
        } catch let error as TallyAPIError where error.status.code < 500 && error.code != .notFound {
            return try await userPage(request, visit, id: id, error: Self.message(error, visit.language), status: .init(code: error.status.code))
        }
    }

    func revoke(_ request: Request, _ visit: Visit, id: String, grantID: String) async throws -> Response {
        guard grantID.count <= 64 else { throw ConsoleRefusal.notFound }
        _ = try await console.revokeEntitlement(actor: visit.session!.actor, userID: id, grantID: grantID)
        return try await userPage(request, visit, id: id, notice: ConsoleText.text("revoked_notice", visit.language))
    }

    // MARK: - Exports

    func transactionsCSV(_ request: Request, _ visit: Visit) async throws -> Response {
        let filters = TransactionFilters(Self.query(request))
        var first = try filters.query(visit.language)
        first.limit = 200
        first.cursor = nil
        try await console.audit(
            actor: visit.session!.actor, action: "export", target: "transactions", before: nil, after: nil,
            detail: filters.queryString(excluding: ["after", "limit"]))
        let storage = storage
        let header = [
            "transaction_id", "original_transaction_id", "user_id", "product_id", "type", "status", "environment", "quantity", "price_milliunits",
            "currency", "storefront", "purchase_date", "expires_date", "received_at", "revoked_at", "revocation_reason", "app_account_token",
        ]
        return Self.csv("transactions", header: header) { [first] (cursor: AdminCursor?) in
            var query = first
            query.cursor = cursor
            let page = try await storage.adminTransactions(query)
            let lines = page.transactions.map { row -> [String?] in
                [
                    row.transactionID, row.originalTransactionID, row.userID, row.productID, row.type, row.status, row.environment,
                    String(row.quantity), row.price.map(String.init), row.currency, row.storefront, row.purchaseDate.map(ConsoleFormat.time),
                    row.expiresDate.map(ConsoleFormat.time), ConsoleFormat.time(row.receivedAt), row.revokedAt.map(ConsoleFormat.time),
                    row.revocationReason.map(String.init), row.appAccountToken,
                ]
            }
            return (lines, page.nextCursor.flatMap { AdminCursor(text: $0) })
        }
    }

    func ledgerCSV(_ request: Request, _ visit: Visit) async throws -> Response {
        let filters = LedgerFilters(Self.query(request))
        var first = try filters.query()
        first.limit = 500
        first.before = nil
        try await console.audit(
            actor: visit.session!.actor, action: "export", target: "ledger", before: nil, after: nil,
            detail: filters.queryString(excluding: ["before", "limit"]))
        let console = console
        let header = ["id", "created_at", "user_id", "currency", "bucket", "kind", "amount", "transaction_id", "reference"]
        return Self.csv("ledger", header: header) { [first] (position: ConsoleLedgerQuery.Position?) in
            var query = first
            query.before = position
            let page = try await console.ledgerEntries(query)
            let lines = page.rows.map { row -> [String?] in
                [
                    String(row.entry.id), ConsoleFormat.time(row.entry.createdAt), row.userID, row.entry.currency, row.entry.bucket.rawValue,
                    row.entry.kind.rawValue, String(row.entry.amount), row.entry.transactionID, row.entry.reference,
                ]
            }
            return (lines, page.next)
        }
    }

    func notificationsCSV(_ request: Request, _ visit: Visit) async throws -> Response {
        let outcome = Self.value(Self.query(request), "outcome")
        guard outcome == nil || NotificationOutcome(rawValue: outcome!) != nil else {
            throw TallyAPIError(.invalidRequest, "outcome must be applied, duplicate or recorded")
        }
        try await console.audit(
            actor: visit.session!.actor, action: "export", target: "notifications", before: nil, after: nil, detail: outcome.map { "outcome=\($0)" })
        let storage = storage
        let header = ["notification_uuid", "received_at", "type", "subtype", "outcome", "transaction_id", "detail"]
        return Self.csv("notifications", header: header) { (cursor: AdminCursor?) in
            let page = try await storage.adminNotifications(outcome: outcome, limit: 200, cursor: cursor)
            let lines = page.notifications.map { row -> [String?] in
                [row.notificationUuid, ConsoleFormat.time(row.receivedAt), row.notificationType, row.subtype, row.outcome, row.transactionID, row.detail]
            }
            return (lines, page.nextCursor.flatMap { AdminCursor(text: $0) })
        }
    }

    func auditCSV(_ request: Request, _ visit: Visit) async throws -> Response {
        try await console.audit(actor: visit.session!.actor, action: "export", target: "audit", before: nil, after: nil, detail: nil)
        let console = console
        let header = ["id", "at", "actor", "action", "target", "before", "after", "detail"]
        return Self.csv("audit", header: header) { (before: Int64?) in
            let page = try await console.auditLog(limit: 500, before: before)
            let lines = page.entries.map { entry -> [String?] in
                [String(entry.id), ConsoleFormat.time(entry.at), entry.actor, entry.action, entry.target, entry.before, entry.after, entry.detail]
            }
            return (lines, page.next)
        }
    }

    /// A CSV answer: the header, then page after page as the database gives them (`page` takes
    /// where to start, nil for the first, and says where the next starts, nil after the last),
    /// so an export of any size holds one page in memory.
    static func csv<Cursor: Sendable>(
        _ name: String, header: [String], page: @escaping @Sendable (Cursor?) async throws -> (lines: [[String?]], next: Cursor?)
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"tally-\(name).csv\""
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ConsoleFormat.csvLine(header)))
                var cursor: Cursor?
                repeat {
                    let (lines, next) = try await page(cursor)
                    try await writer.write(ByteBuffer(string: lines.map(ConsoleFormat.csvLine).joined()))
                    cursor = next
                } while cursor != nil
                try await writer.finish(nil)
            })
    }

    // MARK: - Rendering

    /// What every page's layout reads.
    func base(_ request: Request, _ visit: Visit, page: String, title: String) -> [String: Any] {
        let language = visit.language
        var view: [String: Any] = [
            "lang": language.rawValue, "t": ConsoleText.table(language), "page": page, "title": title,
            "langEN": Self.withLanguage(request, "en"), "langUK": Self.withLanguage(request, "uk"),
        ]
        if let session = visit.session {
            view["signedIn"] = true
            view["actor"] = session.actor
            view["readOnly"] = session.role == .readOnly
            view["csrf"] = session.csrfToken
            let current = [
                "overview": "overview", "transactions": "transactions", "ledger": "ledger", "products": "products",
                "notifications": "notifications", "notification": "notifications", "audit": "audit",
            ][page]
            view["nav"] = [
                ("overview", "/console"), ("transactions", "/console/transactions"), ("ledger", "/console/ledger"),
                ("products", "/console/products"), ("notifications", "/console/notifications"), ("audit", "/console/audit"),
            ].map { item -> [String: Any] in
                ["id": item.0, "href": item.1, "label": ConsoleText.text("nav_\(item.0)", language), "current": item.0 == current]
            }
        } else {
            view["readOnly"] = true
        }
        return view
    }

    func html(_ view: [String: Any], _ template: String, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let text = library.render(view, withTemplate: template) else {
            preconditionFailure("no console template \(template)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The page for an error: a refusal says why; a failure of the database says to try again.
    func failure(_ error: any Error, request: Request, visit: Visit) -> Response {
        let language = visit.language
        let status: HTTPResponse.Status
        let message: String
        switch error {
        case ConsoleRefusal.csrf:
            (status, message) = (.forbidden, ConsoleText.text("csrf_refused", language))
        case ConsoleRefusal.exportToken:
            (status, message) = (.forbidden, ConsoleText.text("export_refused", language))
        case ConsoleRefusal.readOnly:
            (status, message) = (.forbidden, ConsoleText.text("forbidden_read_only", language))
        case ConsoleRefusal.notFound:
            (status, message) = (.notFound, ConsoleText.text("not_found", language))
        case ConsoleRefusal.busy:
            (status, message) = (.serviceUnavailable, ConsoleText.text("busy", language))
        case let error as TallyAPIError where error.status.code < 500:
            (status, message) = (.init(code: error.status.code), Self.message(error, language))
        case let error as any HTTPResponseError where error.status.code < 500:
            (status, message) = (error.status, ConsoleText.text("input_invalid", language))
        default:
            (status, message) = (.serviceUnavailable, ConsoleText.text("unavailable", language))
        }
        var view = base(request, visit, page: "message", title: ConsoleText.text("error_title", language))
        view["error"] = message
        view["backHref"] = visit.session == nil ? "/console/login" : "/console"
        return (try? html(view, "message", status: status)) ?? Response(status: status)
    }

    /// A refusal in the page's language: the known ones by their code, the rest with the
    /// detail the storage gave (ids and field names, which read the same in both).
    static func message(_ error: TallyAPIError, _ language: ConsoleText.Language) -> String {
        let keys: [TallyAPIError.Code: String] = [
            .notFound: "not_found", .invalidAmount: "amount_invalid", .unknownCurrency: "currency_unknown",
            .invalidIdempotencyKey: "key_invalid", .idempotencyKeyReused: "key_reused", .rateLimited: "rate_limited",
        ]
        if let key = keys[error.code] { return ConsoleText.text(key, language) }
        return "\(ConsoleText.text("input_invalid", language)): \(error.message)"
    }

    static func stylesheet() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/css; charset=utf-8"
        headers[.cacheControl] = "public, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: ConsoleTemplates.stylesheet)))
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: - Small parts

    /// An id from the path: one no row can have (a NUL, over 128 characters) is not found.
    static func identifier(_ text: String) throws -> String {
        guard !text.isEmpty, text.count <= 128, !text.contains("\u{0}") else { throw ConsoleRefusal.notFound }
        return text
    }

    /// The App Store's environments, as transactions name them.
    static let environments = ["Production", "Sandbox", "Xcode", "LocalTesting"]

    /// The form fields of a urlencoded body (at most 64 kB); the first of a repeated name wins.
    /// - Throws: ``TallyAPIError`` `invalid_request` for another content type, a body that is not
    ///   urlencoded UTF-8, or a NUL character.
    static func form(_ request: Request) async throws -> [String: String] {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            throw TallyAPIError(.invalidRequest, "a form must be sent as application/x-www-form-urlencoded")
        }
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        guard let fields = formFields(String(buffer: buffer)) else { throw TallyAPIError(.invalidRequest, "the form is not valid urlencoded text") }
        return fields
    }

    /// Reads `name=value&…` as browsers write it (`+` for a space, `%XX` for a byte); nil for a
    /// bad escape, bytes that are not UTF-8 or a NUL character.
    static func formFields(_ text: String) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeFormComponent(parts[0]), let value = decodeFormComponent(parts.count > 1 ? parts[1] : "") else {
                return nil
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    static func decodeFormComponent(_ text: Substring) -> String? {
        guard let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding, !decoded.contains("\u{0}") else {
            return nil
        }
        return decoded
    }

    static func option(_ value: String, _ label: String, _ selected: String?) -> [String: Any] {
        ["value": value, "label": label, "selected": value == selected]
    }

    /// The address's query fields, read as a GET form writes them (`+` for a space, `%2B` for a
    /// `+`), from the raw query: the framework's `queryParameters` has already turned `%2B` into
    /// `+`, which could no longer be told from a space. The first of a repeated name wins; a
    /// field with a bad escape, bytes that are not UTF-8 or a NUL character reads as absent.
    static func query(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeFormComponent(parts[0]), let value = decodeFormComponent(parts.count > 1 ? parts[1] : "") else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// A query field, nil when absent or empty (an empty select of a GET form).
    static func value(_ fields: [String: String], _ name: String) -> String? {
        guard let value = fields[name], !value.isEmpty else { return nil }
        return value
    }

    static func limit(_ parameters: [String: String]) throws -> Int {
        guard let text = value(parameters, "limit") else { return 50 }
        guard let limit = Int(text), (1...200).contains(limit) else { throw TallyAPIError(.invalidRequest, "limit must be 1 to 200") }
        return limit
    }

    static func queryString(_ fields: [String: String]) -> String {
        guard !fields.isEmpty else { return "" }
        return "?" + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(queryEscape($0.value))" }.joined(separator: "&")
    }

    static func queryEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func pathEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// The page's address with `lang` set.
    static func withLanguage(_ request: Request, _ language: String) -> String {
        var fields: [String: String] = [:]
        for (name, value) in query(request) where name != "lang" { fields[name] = value }
        fields["lang"] = language
        return request.uri.path + queryString(fields)
    }

    static func randomToken() -> String {
        Base64.encodeURL((0..<32).map { _ in UInt8.random(in: 0...255) })
    }

    static func digest(_ text: String) -> String { ConsoleSessionCookie.hash(text) }

    /// The payload of a JWS as JSON, without checking it (it was verified when it arrived).
    static func jwsPayload(_ jws: String) -> [String: Any]? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64.decode(parts[1].utf8, alphabet: .url) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    static func pretty(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
