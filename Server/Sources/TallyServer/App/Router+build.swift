import Hummingbird
import TallyCore

/// The routes, grouped by who may call them. Each group's middleware authenticates the caller
/// and takes from its rate limits before any handler runs, so this table is the whole answer
/// to "who may call what, how often". Every GET route also answers HEAD.
func buildRouter(_ dependencies: ServerDependencies) -> Router<TallyRequestContext> {
    let router = Router(context: TallyRequestContext.self, options: .autoGenerateHeadEndpoints)
    let allowedMethods = AllowedMethods()
    router.add(
        middleware: ServerMiddleware(
            metrics: dependencies.metrics, addresses: ClientAddressResolver(trustedProxies: dependencies.trustedProxies),
            allowedMethods: allowedMethods, maximumBodyBytes: dependencies.catalog.limits.maximumBodyBytes))

    let storage = dependencies.storage
    let metrics = dependencies.metrics
    let limits = RateLimits(dependencies.catalog.limits, metrics: metrics, now: dependencies.now)
    let checker = SignedDataChecker(
        verifier: dependencies.verifier, receiptVerifier: dependencies.receiptVerifier, metrics: metrics,
        failures: VerificationFailureCounter(storage: dependencies.console))
    let secretKey = SecretKeyAuthenticator(secretKey: dependencies.secretKey)
    let spending = SpendingController(spending: storage.spending, metrics: metrics)

    // Anyone: operations, the catalog. `/metrics` is on a listener of its own (buildMetricsRouter).
    router.addRoutes(OperationsController(catalog: dependencies.catalog, healthCheck: dependencies.healthCheck).endpoints)
    let v1 = router.group("v1")
    v1.addRoutes(ProductController(catalog: dependencies.catalog).endpoints, atPath: "products")

    // Anyone may sign up, limited per address; the app's server, with the secret key, without limit.
    v1.group("users")
        .add(middleware: secretKey)
        .add(middleware: RateLimitMiddleware<TallyRequestContext>(limits, .addressUnlessSecretKey))
        .addRoutes(UserController(users: storage.users).endpoints)

    // The App Store: authenticated by the signature of what it posts, limited per address.
    v1.group("notifications/appstore")
        .add(middleware: RateLimitMiddleware<TallyRequestContext>(limits, .notifications))
        .addRoutes(NotificationController(notifications: storage.notifications, checker: checker, metrics: metrics).endpoints)

    // A user, with their token: reads and order bookkeeping unlimited; writes that take
    // credits or verify signed data limited per user and per address.
    let authenticated = v1.group("me").add(middleware: UserAuthenticator(users: storage.users, cache: TokenCache()))
    if let key = dependencies.responseSigningKey {
        authenticated.add(middleware: ResponseSigner(key: key, now: dependencies.now))
    }
    let me = authenticated.group(context: UserRequestContext.self)
    me.addRoutes(AccountController(users: storage.users, catalog: dependencies.catalog).endpoints)
    me.addRoutes(OrderController(purchases: storage.purchases).endpoints, atPath: "orders")
    me.addRoutes(spending.releaseEndpoints)
    me.group()
        .add(middleware: RateLimitMiddleware<UserRequestContext>(limits, .userAndAddress))
        .addRoutes(
            PurchaseController(users: storage.users, purchases: storage.purchases, checker: checker, metrics: metrics, apple: dependencies.apple).endpoints
        )
        .addRoutes(SubscriptionRefreshController(users: storage.users, notifications: storage.notifications, apple: dependencies.apple).endpoints)
        .addRoutes(spending.endpoints)

    // The app's team, with the secret key.
    v1.group("admin")
        .add(middleware: secretKey)
        .group(context: AdminRequestContext.self)
        .addRoutes(AdminController(admin: storage.admin, figures: storage.metrics, now: dependencies.now).endpoints)
        .addRoutes(WebhookController(storage: dependencies.webhooks).endpoints)

    addConsoleRoutes(to: router, dependencies, limits: limits)

    allowedMethods.load(router.routes.map { ($0.path.description, $0.method) })
    return router
}

/// The web console under `/console`, for the app's team: server-rendered pages over the same
/// storage as the API. Every route runs in a ``ConsoleRequestContext`` (language, session);
/// pages for operators in a ``ConsoleOperatorContext``, which a visitor cannot reach (they are
/// sent to the sign-in page); forms behind ``ConsoleFormGuard`` with the role they need;
/// exports behind ``ConsoleExportGuard``. Errors are pages (``ConsoleErrorPages``).
func addConsoleRoutes(to router: Router<TallyRequestContext>, _ dependencies: ServerDependencies, limits: RateLimits) {
    let storage = dependencies.storage
    let console = dependencies.console
    let now = dependencies.now
    let origin = ConsoleOrigin(trustedProxies: dependencies.trustedProxies)
    let pages = ConsolePages()
    let export = ConsoleExport(console: console)
    let signIn = ConsoleSignInController(console: console, secretKey: dependencies.secretKey, origin: origin, pages: pages, now: now)
    let users = ConsoleUsersController(admin: storage.admin, console: console, catalog: dependencies.catalog, pages: pages, now: now)
    let transactions = ConsoleTransactionsController(admin: storage.admin, catalog: dependencies.catalog, pages: pages, export: export)
    let ledger = ConsoleLedgerController(console: console, catalog: dependencies.catalog, pages: pages, export: export)
    let notifications = ConsoleNotificationsController(admin: storage.admin, console: console, pages: pages, export: export, now: now)
    let audit = ConsoleAuditController(console: console, pages: pages, export: export)
    let metrics = ConsoleMetricsController(figures: storage.metrics, catalog: dependencies.catalog, pages: pages, export: export, now: now)

    let root = router.group("console").add(middleware: ConsoleHeaders<TallyRequestContext>())
    root.get("assets/console.css") { _, _ in ConsolePages.stylesheet() }
    /// A group's routes with their language and session, their errors as pages.
    func pagesOf(_ group: RouterGroup<TallyRequestContext>) -> RouterGroup<ConsoleRequestContext> {
        group.group(context: ConsoleRequestContext.self)
            .add(middleware: ConsoleSessionMiddleware(console: console, secretKey: dependencies.secretKey, origin: origin, pages: pages))
            .add(middleware: ConsoleErrorPages(pages: pages))
    }

    // Anyone: the sign-in page; signing in, limited per address (and by the controller).
    let visitors = pagesOf(root)
    visitors.addRoutes(signIn.pageEndpoint)
    pagesOf(root.group().add(middleware: RateLimitMiddleware<TallyRequestContext>(limits, .addressUnlessSecretKey)))
        .addRoutes(signIn.signInEndpoint)

    // Any operator: every page, the exports with the session's token, signing out.
    let operators = visitors.group(context: ConsoleOperatorContext.self)
    operators.addRoutes(ConsoleOverviewController(console: console, catalog: dependencies.catalog, pages: pages, now: now).endpoints)
    operators.addRoutes(metrics.endpoints)
    operators.addRoutes(users.endpoints)
    operators.addRoutes(transactions.endpoints)
    operators.addRoutes(ledger.endpoints)
    operators.addRoutes(notifications.endpoints)
    operators.addRoutes(audit.endpoints)
    operators.group().add(middleware: ConsoleExportGuard())
        .addRoutes(transactions.exportEndpoints)
        .addRoutes(ledger.exportEndpoints)
        .addRoutes(notifications.exportEndpoints)
        .addRoutes(audit.exportEndpoints)
        .addRoutes(metrics.exportEndpoints)
    operators.group().add(middleware: ConsoleFormGuard(role: .readOnly, origin: origin))
        .addRoutes(signIn.signOutEndpoint)

    // An admin: the changes to a user.
    operators.group().add(middleware: ConsoleFormGuard(role: .admin, origin: origin))
        .addRoutes(users.changeEndpoints)
}

/// The metrics listener's routes: `GET /metrics` and nothing else. It listens on an address of
/// its own (``ServerConfiguration/metricsAddress``), so that the business's totals it counts
/// are never on the public listener.
func buildMetricsRouter(_ metrics: Metrics) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.addRoutes(MetricsController(metrics: metrics).endpoints)
    return router
}
