import Crypto
import Foundation
import Hummingbird
import TallyCore
import TallyVerify

/// The API's routes. Each handler parses and checks its input, calls storage, and answers
/// JSON; failures are thrown as ``APIError`` or ``TallyServerError`` and rendered by
/// ``ServerMiddleware``.
struct Handlers: Sendable {
    let dependencies: ServerDependencies
    let rateLimits: RateLimits
    let tokenCache = TokenCache()

    init(dependencies: ServerDependencies) {
        self.dependencies = dependencies
        rateLimits = RateLimits(dependencies.catalog.limits, metrics: dependencies.metrics, now: dependencies.now)
    }

    var storage: any TallyStorage { dependencies.storage }

    func register(on router: Router<TallyRequestContext>) {
        router.get("healthz") { _, _ in try await health() }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(string: dependencies.metrics.exposition())))
        }
        router.get("openapi.yaml") { _, _ in try openAPI() }

        let v1 = router.group("v1")
        v1.post("users") { request, context in try await createUser(request, context) }
        v1.get("products") { request, _ in try products(request) }
        v1.post("me/orders") { request, context in try await createOrder(request, context) }
        v1.get("me/orders/:id") { request, context in try await json(storage.order(user: user(request), id: parameter("id", context))) }
        v1.post("me/orders/:id/fail") { request, context in
            let user = try await user(request)
            let body = try await decode(FailOrderRequest.self, request, context)
            return try await json(storage.failOrder(user: user, id: parameter("id", context), reason: body.reason))
        }
        v1.post("me/purchases") { request, context in try await purchase(request, context) }
        v1.post("me/restore") { request, context in try await restore(request, context) }
        v1.get("me") { request, _ in try await json(written: storage.account(user: user(request))) }
        v1.get("me/ledger") { request, _ in try await ledger(request) }
        v1.post("me/spend") { request, context in try await spend(request, context) }
        v1.post("me/reservations") { request, context in try await reserve(request, context) }
        v1.post("me/reservations/:id/commit") { request, context in
            let user = try await user(request)
            try limit(user: user, context: context)
            let body = try await decode(CommitReservationRequest.self, request, context)
            return try await json(storage.commit(user: user, reservationID: parameter("id", context), used: body.used))
        }
        v1.delete("me/reservations/:id") { request, context in
            try await json(storage.release(user: user(request), reservationID: parameter("id", context)))
        }
        v1.post("notifications/appstore") { request, context in try await notification(request, context) }
        v1.get("admin/users/:id") { request, context in
            try admin(request)
            return try await json(storage.adminUser(id: parameter("id", context)))
        }
        v1.post("admin/users/:id/adjustments") { request, context in try await adjust(request, context) }
        v1.get("admin/transactions") { request, _ in try await adminTransactions(request) }
        v1.get("admin/notifications") { request, _ in
            try admin(request)
            let query = request.uri.queryParameters
            return try await json(storage.adminNotifications(limit: try pageSize(query["limit"]), cursor: try adminCursor(query["cursor"])))
        }
    }

    // MARK: - Plumbing

    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try TallyAPI.encoder().encode(value)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The same answer as ``json(_:status:)``, written without `JSONEncoder` (see ``ResponseJSON``).
    func json(written value: some ResponseJSONWritable, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ResponseJSON.encode(value)))
    }

    /// The body, or 413 when it is larger than the limit.
    func body(_ request: Request, limit: Int) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: limit)
        } catch {
            throw APIError(.contentTooLarge, .payloadTooLarge, "the request body is larger than \(limit) bytes")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: TallyRequestContext) async throws -> T {
        let buffer = try await body(request, limit: dependencies.catalog.limits.maximumBodyBytes)
        try Self.refuseDuplicateMembers(buffer, convertingFromSnakeCase: true)
        do {
            return try TallyAPI.decoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError(.badRequest, .invalidRequest, "the body needs the field \(Self.snake(key.stringValue))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw APIError(.badRequest, .invalidRequest, "\(Self.path(context.codingPath)) has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw APIError(.badRequest, .invalidRequest, "\(Self.path(context.codingPath)) must not be null")
        } catch {
            throw APIError(.badRequest, .invalidRequest, "the body is not a JSON object of the expected shape")
        }
    }

    /// 400 when an object in the body names a member twice: the decoder would keep one silently.
    static func refuseDuplicateMembers(_ buffer: ByteBuffer, convertingFromSnakeCase: Bool) throws {
        if let name = DuplicateMembers.first(in: buffer.readableBytesView, convertingFromSnakeCase: convertingFromSnakeCase) {
            throw APIError(.badRequest, .invalidRequest, "the body names the member \"\(name)\" more than once")
        }
    }

    static func snake(_ key: String) -> String {
        key.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the body" : keys.map { $0.intValue.map { "[\($0)]" } ?? snake($0.stringValue) }.joined(separator: ".")
    }

    func parameter(_ name: String, _ context: TallyRequestContext) throws -> String {
        guard let value = context.parameters.get(name), !value.isEmpty, value.unicodeScalars.count <= 128 else {
            throw APIError(.badRequest, .invalidRequest, "\(name) must be 1 to 128 characters")
        }
        return value
    }

    func pageSize(_ text: Substring?) throws -> Int {
        guard let text else { return 50 }
        guard let value = Int(text), (1...200).contains(value) else {
            throw APIError(.badRequest, .invalidRequest, "limit must be 1 to 200")
        }
        return value
    }

    func adminCursor(_ text: Substring?) throws -> AdminCursor? {
        guard let text else { return nil }
        guard let cursor = AdminCursor(text: text) else { throw APIError(.badRequest, .invalidRequest, "cursor is not one this server gave") }
        return cursor
    }

    func cursor(_ text: Substring?) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), value > 0 else { throw APIError(.badRequest, .invalidRequest, "cursor is not one this server gave") }
        return value
    }

    // MARK: - Authentication

    static func bearer(_ request: Request) -> String? {
        BearerToken.parse(request.headers[.authorization])
    }

    static func tokenHash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).withUnsafeBytes { Hex.lowercase($0) }
    }

    func user(_ request: Request) async throws -> User {
        guard let token = Self.bearer(request) else { throw APIError(.unauthorized, .unauthorized, "a user token is required (Authorization: Bearer)") }
        let hash = Self.tokenHash(token)
        if let cached = tokenCache.user(hash) { return cached }
        guard let user = try await storage.user(tokenHash: hash) else {
            throw APIError(.unauthorized, .unauthorized, "the user token is not valid")
        }
        tokenCache.insert(user, for: hash)
        return user
    }

    func isAdmin(_ request: Request) -> Bool {
        guard let secret = dependencies.secretKey, !secret.isEmpty, let token = Self.bearer(request) else { return false }
        // Constant time: compare digests byte by byte without stopping early.
        let given = Array(SHA256.hash(data: Data(token.utf8)))
        let expected = Array(SHA256.hash(data: Data(secret.utf8)))
        return zip(given, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    func admin(_ request: Request) throws {
        guard isAdmin(request) else { throw APIError(.unauthorized, .unauthorized, "the secret key is required (Authorization: Bearer)") }
    }

    func limit(user: User?, context: TallyRequestContext) throws {
        try rateLimits.check(user: user, context: context)
    }

    // MARK: - Routes

    func health() async throws -> Response {
        guard await dependencies.healthCheck() else {
            throw APIError(.serviceUnavailable, .unavailable, "the database does not answer")
        }
        return try json(["status": "ok"])
    }

    func openAPI() throws -> Response {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"), let data = try? Data(contentsOf: url) else {
            throw APIError(.internalServerError, .internalError, "the OpenAPI document is missing from the build")
        }
        return Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func createUser(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        // Sign-ups grant credits: an address may not make users without limit (the app's server, with the key, may).
        if !isAdmin(request) { try limit(user: nil, context: context) }
        let buffer = try await body(request, limit: dependencies.catalog.limits.maximumBodyBytes)
        var body = CreateUserRequest()
        if buffer.readableBytes > 0 {
            body = try await decode(CreateUserRequest.self, Request(head: request.head, body: .init(buffer: buffer)), context)
        }
        if let appUserID = body.appUserId {
            guard isAdmin(request) else {
                throw APIError(.unauthorized, .unauthorized, "app_user_id needs the secret key: only the app's server may name its users")
            }
            guard !appUserID.isEmpty, appUserID.unicodeScalars.count <= 128 else {
                throw APIError(.badRequest, .invalidRequest, "app_user_id must be 1 to 128 characters")
            }
        }
        let token = Self.newToken()
        let (user, created, granted) = try await storage.createUser(appUserID: body.appUserId, tokenHash: Self.tokenHash(token))
        return try json(
            CreateUserResponse(userId: user.id, appAccountToken: user.appAccountToken, userToken: token, created: created, granted: granted),
            status: created ? .created : .ok)
    }

    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "tu_" + Base64.encodeURL(bytes)
    }

    func products(_ request: Request) throws -> Response {
        let requested = request.uri.queryParameters["locale"].map(String.init) ?? "en"
        let language = String(requested.prefix { $0 != "-" && $0 != "_" }).lowercased()
        let catalog = dependencies.catalog
        let locale = catalog.products.first?.paywall[language] != nil ? language : "en"
        let products = catalog.products.map { product in
            let paywall = product.paywall[locale] ?? product.paywall["en"] ?? product.paywall.values.first
            return ProductInfo(
                productId: product.productId, kind: product.kind, grants: product.grants, entitlements: product.entitlements,
                allowance: product.allowance.map { ProductInfo.Allowance(currency: $0.currency, amount: $0.amount, per: $0.per) },
                paywall: ProductInfo.Paywall(
                    title: paywall?.title ?? product.productId, description: paywall?.description ?? "", benefits: paywall?.benefits ?? [],
                    aiExplanation: paywall?.aiExplanation, locale: locale))
        }
        let currencies = catalog.currencies.map {
            ProductsResponse.Currency(code: $0.code, name: $0.names[locale] ?? $0.names["en"] ?? $0.code)
        }
        return try json(ProductsResponse(locale: locale, currencies: currencies, products: products))
    }

    func createOrder(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        let user = try await user(request)
        let body = try await decode(CreateOrderRequest.self, request, context)
        return try json(try await storage.createOrder(user: user, productID: body.productId), status: .created)
    }

    /// Verifies signed transaction data for a device call; failures name the verifier's code.
    func verify(_ jws: String) async throws -> Verified<TransactionPayload> {
        switch await dependencies.verifier.verifyTransaction(jws) {
        case .valid(let verified):
            return verified
        case .invalid(let failure):
            dependencies.metrics.increment("tally_verification_failures_total", ["code": failure.code.rawValue])
            if failure.isRetryable {
                throw APIError(.serviceUnavailable, .verificationUnavailable, "the purchase cannot be verified now: \(failure.reason)")
            }
            var error = TallyServerError(.verificationFailed, "the signed transaction did not verify: \(failure.code.rawValue): \(failure.reason)")
            error.verificationCode = failure.code.rawValue
            throw error
        }
    }

    func purchase(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        let user = try await user(request)
        try limit(user: user, context: context)
        let body = try await decode(PurchaseRequest.self, request, context)
        if let order = body.orderId, order.isEmpty || order.unicodeScalars.count > 64 {
            throw APIError(.badRequest, .invalidRequest, "order_id must be 1 to 64 characters")
        }
        let verified = try await verify(body.signedTransaction)
        let response = try await storage.deliver(verified, jws: body.signedTransaction, presenter: user, orderID: body.orderId)
        if !response.replayed {
            for grant in response.granted {
                dependencies.metrics.increment("tally_grants_total", ["currency": grant.currency], by: grant.amount)
            }
        }
        return try json(response)
    }

    func restore(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        let user = try await user(request)
        try limit(user: user, context: context)
        let body = try await decode(RestoreRequest.self, request, context)
        guard body.signedTransactions.count <= 100 else {
            throw APIError(.badRequest, .invalidRequest, "restore at most 100 transactions at a time")
        }
        var results: [RestoreResponse.Item] = []
        for jws in body.signedTransactions {
            do {
                let verified = try await verify(jws)
                let response = try await storage.deliver(verified, jws: jws, presenter: user, orderID: nil)
                results.append(RestoreResponse.Item(transactionId: response.transactionId, purchase: response, error: nil))
            } catch let error as TallyServerError {
                results.append(RestoreResponse.Item(transactionId: nil, purchase: nil, error: APIError(error).body))
            } catch let error as APIError {
                results.append(RestoreResponse.Item(transactionId: nil, purchase: nil, error: error.body))
            } catch {
                // Each item is its own transaction: those delivered stand, this one is reported, the request goes on.
                context.logger.error("restore item failed", metadata: ["error": "\(error)"])
                results.append(RestoreResponse.Item(
                    transactionId: nil, purchase: nil,
                    error: APIError(.internalServerError, .internalError, "this transaction could not be delivered; retry").body))
            }
        }
        let account = try await storage.account(user: user)
        return try json(RestoreResponse(results: results, balances: account.balances, entitlements: account.entitlements))
    }

    func ledger(_ request: Request) async throws -> Response {
        let user = try await user(request)
        let query = request.uri.queryParameters
        let currency = query["currency"].map(String.init)
        if let currency, !dependencies.catalog.hasCurrency(currency) {
            throw APIError(.badRequest, .unknownCurrency, "no currency \(currency)")
        }
        return try json(try await storage.ledger(
            user: user, currency: currency, kind: query["kind"].map(String.init), limit: try pageSize(query["limit"]),
            cursor: try cursor(query["cursor"])))
    }

    func spend(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        let user = try await user(request)
        try limit(user: user, context: context)
        let body = try await decode(SpendRequest.self, request, context)
        let response = try await storage.spend(user: user, request: body)
        if !response.replayed {
            dependencies.metrics.increment("tally_spends_total", ["currency": body.currency], by: body.amount)
        }
        return try json(response)
    }

    func reserve(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        let user = try await user(request)
        try limit(user: user, context: context)
        let body = try await decode(ReservationRequest.self, request, context)
        let reservation = try await storage.reserve(user: user, request: body)
        return try json(reservation, status: reservation.replayed ? .ok : .created)
    }

    struct NotificationBody: Decodable {
        var signedPayload: String
    }

    func notification(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        try rateLimits.checkNotification(context: context)
        let buffer = try await body(request, limit: max(dependencies.catalog.limits.maximumBodyBytes, 256 * 1024))
        // Apple's body is camelCase: {"signedPayload": "..."}.
        try Self.refuseDuplicateMembers(buffer, convertingFromSnakeCase: false)
        guard let body = try? JSONDecoder().decode(NotificationBody.self, from: Data(buffer.readableBytesView)) else {
            throw APIError(.badRequest, .invalidRequest, "the body must be {\"signedPayload\": \"…\"}")
        }
        switch await dependencies.verifier.verifyNotification(body.signedPayload, includingSignedData: true) {
        case .invalid(let failure):
            dependencies.metrics.increment("tally_verification_failures_total", ["code": failure.code.rawValue])
            if failure.isRetryable {
                throw APIError(.serviceUnavailable, .verificationUnavailable, "cannot verify now: \(failure.reason)")
            }
            var error = TallyServerError(.verificationFailed, "the notification did not verify: \(failure.code.rawValue): \(failure.reason)")
            error.verificationCode = failure.code.rawValue
            throw error
        case .valid(let verified):
            let outcome = try await storage.apply(verified, jws: body.signedPayload)
            dependencies.metrics.increment(
                "tally_notifications_total", ["type": verified.payload.notificationType?.rawValue ?? "UNKNOWN", "outcome": outcome.rawValue])
            context.logger.info("notification", metadata: [
                "type": "\(verified.payload.notificationType?.rawValue ?? "?")", "uuid": "\(verified.payload.notificationUUID ?? "?")",
                "outcome": "\(outcome.rawValue)"])
            return try json(["outcome": outcome.rawValue])
        }
    }

    struct AdjustmentBody: Decodable {
        var currency: String
        var amount: Int64
        var reason: String
        var idempotencyKey: String
    }

    func adjust(_ request: Request, _ context: TallyRequestContext) async throws -> Response {
        try admin(request)
        let body = try await decode(AdjustmentBody.self, request, context)
        return try json(try await storage.adjust(
            userID: parameter("id", context), amount: Amount(currency: body.currency, amount: body.amount),
            reason: body.reason, idempotencyKey: body.idempotencyKey))
    }

    func adminTransactions(_ request: Request) async throws -> Response {
        try admin(request)
        let query = request.uri.queryParameters
        if let type = query["type"], !["consumable", "non_consumable", "non_renewing", "auto_renewable"].contains(String(type)) {
            throw APIError(.badRequest, .invalidRequest, "type must be consumable, non_consumable, non_renewing or auto_renewable")
        }
        return try json(try await storage.adminTransactions(AdminTransactionQuery(
            type: query["type"].map(String.init), status: query["status"].map(String.init),
            productID: query["product_id"].map(String.init), text: query["q"].map(String.init),
            limit: try pageSize(query["limit"]), cursor: try adminCursor(query["cursor"]))))
    }
}

/// Users by token hash, so that a user's calls do not read the database to authenticate.
/// Tokens never change owner, so entries never go stale.
final class TokenCache: @unchecked Sendable {
    private let lock = NSLock()
    private var users: [String: User] = [:]

    func user(_ hash: String) -> User? { lock.withLock { users[hash] } }

    func insert(_ user: User, for hash: String) {
        lock.withLock {
            if users.count >= 100_000 { users.removeAll(keepingCapacity: true) }
            users[hash] = user
        }
    }
}
