public import Foundation
public import TallyCore
public import TallyVerify

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivery to a Tally server (`tally serve`): the server verifies each transaction, credits
/// it once, and keeps balances, spends, reservations and entitlements for the user.
///
/// Purchases go through an order: ``prepare(productID:)`` creates it and hands back the
/// app account token to buy with, ``deliver(_:ticket:)`` submits the transaction with the
/// order, ``abandon(_:reason:)`` closes an order whose payment did not happen.
///
/// ```swift
/// let credentials = try await ServerDelivery.register(baseURL: server)   // once; keep it in the Keychain
/// let delivery = ServerDelivery(baseURL: server, credentials: credentials)
/// ```
public struct ServerDelivery: Delivery {
    /// Who the device acts for: the user made by `POST /v1/users`.
    public struct Credentials: Sendable, Hashable, Codable {
        /// The server's user id.
        public var userID: String
        /// The bearer token of device calls.
        public var userToken: String
        /// The user's app account token, passed to the store with every purchase.
        public var appAccountToken: UUID

        /// - Parameters:
        ///   - userID: the user id.
        ///   - userToken: the bearer token.
        ///   - appAccountToken: the app account token.
        public init(userID: String, userToken: String, appAccountToken: UUID) {
            self.userID = userID
            self.userToken = userToken
            self.appAccountToken = appAccountToken
        }
    }

    /// The server's address, e.g. `https://purchases.example.com`.
    public let baseURL: URL
    /// The user.
    public let credentials: Credentials
    let transport: any HTTPTransport
    /// Whether the server's signed answers are checked, and what a failed check does.
    public let responseCheck: ResponseCheck

    /// How ``ServerDelivery`` treats the server's signed answers (`tally serve --response-signing-key`).
    public enum ResponseCheck: Sendable {
        /// Answers are not checked.
        case off
        /// Each answer to `/v1/me…` is checked; the account carries the verdict
        /// (``AccountSnapshot/trust``) and nothing else changes.
        case informational(ResponseVerifier)
        /// Each answer to `/v1/me…` must verify: one that does not (changed, replayed, from
        /// another server, signed by an expired key) is an error, `response_not_trusted`, and
        /// nothing is granted from it; the purchase is delivered again later.
        case enforced(ResponseVerifier)
    }

    /// - Parameters:
    ///   - baseURL: the server's address.
    ///   - credentials: the user.
    ///   - transport: how requests travel; `URLSession` by default.
    ///   - responseCheck: whether to check the server's signed answers (off by default).
    public init(baseURL: URL, credentials: Credentials, transport: any HTTPTransport = URLSessionTransport(), responseCheck: ResponseCheck = .off) {
        self.baseURL = baseURL
        self.credentials = credentials
        self.transport = transport
        self.responseCheck = responseCheck
    }

    /// Creates an anonymous user on the server.
    /// - Parameters:
    ///   - baseURL: the server's address.
    ///   - transport: how requests travel.
    /// - Returns: the credentials to keep (in the Keychain) and use from now on.
    /// - Throws: ``TallyError`` for network and server failures.
    public static func register(baseURL: URL, transport: any HTTPTransport = URLSessionTransport()) async throws(TallyError) -> Credentials {
        let client = Client(baseURL: baseURL, token: nil, transport: transport)
        let created: CreateUserResponse = try await client.call("POST", "/v1/users", body: CreateUserRequest())
        return Credentials(userID: created.userID, userToken: created.userToken, appAccountToken: created.appAccountToken)
    }

    var client: Client {
        Client(baseURL: baseURL, token: credentials.userToken, transport: transport, check: responseCheck, userID: credentials.userID)
    }

    // MARK: - Delivery

    public func catalog(language: TallyLanguage) async throws(TallyError) -> [ProductGrant] {
        let response: ProductsResponse = try await client.call("GET", "/v1/products", query: [URLQueryItem(name: "locale", value: language.code)])
        return response.products.map { product in
            ProductGrant(
                id: product.productID, kind: product.kind, grants: product.grants,
                entitlements: product.entitlements, allowance: product.allowance.map { Amount(currency: $0.currency, amount: $0.amount) },
                paywall: PaywallText(
                    title: product.paywall.title, description: product.paywall.description, benefits: product.paywall.benefits,
                    aiExplanation: product.paywall.aiExplanation),
                durationDays: product.durationDays)
        }
    }

    public func prepare(productID: String) async throws(TallyError) -> PurchaseTicket {
        do throws(TallyError) {
            let order: Order = try await client.call("POST", "/v1/me/orders", body: CreateOrderRequest(productID: productID))
            return PurchaseTicket(productID: productID, orderID: order.orderID, appAccountToken: order.appAccountToken)
        } catch  where error.code == .productNotFound || error.code == .invalidRequest {
            throw TallyError(.productNotFound, "the server has no product \(productID): \(error.reason)", requestID: error.requestID)
        } catch  where !error.isTransient && error.code != .unauthorized {
            throw TallyError(.orderFailed, "the server did not create an order: \(error.reason)", requestID: error.requestID)
        }
    }

    public func deliver(_ transaction: StoreTransaction, ticket: PurchaseTicket?) async throws(TallyError) -> DeliveryReceipt {
        let request =
            switch transaction.evidence {
            case .jws(let jws): PurchaseRequest(signedTransaction: jws, orderID: ticket?.orderID)
            case .receipt(let receipt): PurchaseRequest(receipt: receipt, transactionID: transaction.id, orderID: ticket?.orderID)
            }
        let response: PurchaseResponse = try await client.call("POST", "/v1/me/purchases", body: request)
        // Only an answer that names this transaction proves it was credited.
        guard response.transactionID == transaction.id else {
            throw TallyError(.serverUnavailable, "the server answered for \(response.transactionID), not \(transaction.id)")
        }
        return response
    }

    public func abandon(_ ticket: PurchaseTicket, reason: String) async throws(TallyError) {
        guard let orderID = ticket.orderID else { return }
        do throws(TallyError) {
            let _: Order = try await client.call("POST", "/v1/me/orders/\(Self.escaped(orderID))/fail", body: FailOrderRequest(reason: reason))
        } catch  where error.code == .orderFailed {
            // Already fulfilled or closed: nothing left to abandon.
        }
    }

    /// The server's account (`GET /v1/me`); the store's transactions and renewal infos are not
    /// sent, because the server learns them from the App Store itself.
    public func account(storeEntitlements: [StoreTransaction], renewals: [String]) async throws(TallyError) -> AccountSnapshot {
        let (account, trust): (AccountResponse, ResponseTrust?) = try await client.checkedCall("GET", "/v1/me", query: [], body: Client.Empty?.none)
        var snapshot = AccountSnapshot(balances: account.balances, entitlements: account.entitlements)
        snapshot.trust = trust
        return snapshot
    }

    /// `nil`: the server keeps the account; the manager caches its last answer.
    public func localAccount() async throws(TallyError) -> AccountSnapshot? { nil }

    /// The server's ledger (`GET /v1/me/ledger`, every page), as acquisitions (purchases,
    /// sign-up grants, positive adjustments) and consumptions (spends, allowance included).
    ///
    /// The server does not say which purchase a spend was taken from, nor how much of a
    /// purchase is left: ``CreditHistory/Consumption/sources`` is empty and
    /// ``CreditHistory/Acquisition/remaining`` is `nil`. What a reservation used (and so what
    /// ``PurchaseManager/consume(_:amount:for:work:)`` used) carries the reference `reservation`,
    /// because reservations take no reference on the server.
    public func creditHistory(currency: String?) async throws(TallyError) -> CreditHistory {
        var entries: [LedgerEntry] = []
        var cursor: String?
        repeat {
            let page = try await ledger(currency: currency, limit: 200, cursor: cursor)
            entries += page.entries
            cursor = page.nextCursor
        } while cursor != nil
        // The server lists newest first.
        entries.reverse()
        let acquisitions = entries.filter { $0.bucket == .balance && $0.amount > 0 && [.purchase, .signup, .adjustment].contains($0.kind) }
            .map {
                CreditHistory.Acquisition(transactionID: $0.transactionID, currency: $0.currency, amount: $0.amount, acquiredAt: $0.createdAt, remaining: nil)
            }
        let consumptions = entries.filter { $0.amount < 0 && [.spend, .allowanceSpend].contains($0.kind) }
            .map {
                CreditHistory.Consumption(
                    id: String($0.id), currency: $0.currency, amount: -$0.amount, reference: $0.reference, date: $0.createdAt, sources: [])
            }
        return CreditHistory(acquisitions: acquisitions, consumptions: consumptions)
    }

    public func spend(_ order: SpendOrder) async throws(TallyError) -> SpendResponse {
        try await client.call("POST", "/v1/me/spend", body: order)
    }

    public func reserve(_ order: ReservationOrder) async throws(TallyError) -> Reservation {
        try await client.call(
            "POST", "/v1/me/reservations",
            body: ReservationRequest(currency: order.currency, amount: order.amount, ttlSeconds: order.ttlSeconds, idempotencyKey: order.idempotencyKey))
    }

    public func commit(reservationID: String, used: Int64) async throws(TallyError) -> Reservation {
        try await client.call("POST", "/v1/me/reservations/\(Self.escaped(reservationID))/commit", body: CommitReservationRequest(used: used))
    }

    public func release(reservationID: String) async throws(TallyError) -> Reservation {
        try await client.call("DELETE", "/v1/me/reservations/\(Self.escaped(reservationID))")
    }

    // MARK: - Beyond delivery

    /// An order's status: `created`, `fulfilled`, `failed` or `expired`.
    /// - Throws: ``TallyError``; `invalid_request` for an order this user does not have.
    public func order(_ id: String) async throws(TallyError) -> Order {
        try await client.call("GET", "/v1/me/orders/\(Self.escaped(id))")
    }

    /// The user's ledger, newest first.
    /// - Parameters:
    ///   - currency: only this currency.
    ///   - kind: only this kind (`purchase`, `spend`, …).
    ///   - limit: entries per page.
    ///   - cursor: the previous page's `next_cursor`.
    public func ledger(currency: String? = nil, kind: String? = nil, limit: Int = 50, cursor: String? = nil) async throws(TallyError) -> LedgerPage {
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let currency { query.append(URLQueryItem(name: "currency", value: currency)) }
        if let kind { query.append(URLQueryItem(name: "kind", value: kind)) }
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        return try await client.call("GET", "/v1/me/ledger", query: query)
    }

    static func escaped(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }
}

/// JSON calls to the server, with its errors mapped to ``TallyError``.
struct Client: Sendable {
    let baseURL: URL
    let token: String?
    let transport: any HTTPTransport
    var check: ServerDelivery.ResponseCheck = .off
    /// The user the token belongs to: signed answers must be answers to this user.
    var userID: String = ""

    struct Empty: Encodable {}

    func call<Response: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = []) async throws(TallyError) -> Response {
        try await call(method, path, query: query, body: Empty?.none)
    }

    func call<Response: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: (some Encodable)?
    ) async throws(TallyError) -> Response {
        try await checkedCall(method, path, query: query, body: body).0
    }

    /// A call, and what checking its signed answer found (nil when answers are not checked or
    /// the path is not one the server signs).
    func checkedCall<Response: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: (some Encodable)?
    ) async throws(TallyError) -> (Response, ResponseTrust?) {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw TallyError(.invalidRequest, "the server address \(baseURL) is not a URL")
        }
        components.path =
            components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/")).isEmpty
            ? path : "/" + components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw TallyError(.invalidRequest, "cannot make a URL of \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let verifier: ResponseVerifier?
        switch check {
        case .off: verifier = nil
        case .informational(let checker), .enforced(let checker): verifier = path.hasPrefix("/v1/me") ? checker : nil
        }
        let nonce = verifier.map { _ in ResponseSignature.makeNonce() }
        if let nonce { request.setValue(nonce, forHTTPHeaderField: ResponseSignature.nonceHeader) }
        if let body {
            do {
                request.httpBody = try TallyAPI.encoder().encode(body)
            } catch {
                throw TallyError(.invalidRequest, "cannot encode the request: \(error)")
            }
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }

        let answer: (status: Int, headers: [String: String], body: Data)
        do {
            answer = try await transport.send(request)
        } catch let error as URLError where [.notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff].contains(error.code) {
            throw TallyError(.networkUnavailable, "\(method) \(path): offline (\(error.code.rawValue))")
        } catch {
            throw TallyError(.networkError, "\(method) \(path): \(error)")
        }
        guard (200..<300).contains(answer.status) else {
            throw Self.failure(status: answer.status, headers: answer.headers, body: answer.body, what: "\(method) \(path)")
        }
        var trust: ResponseTrust?
        if let verifier, let nonce, let nonceBytes = ResponseSignature.nonceBytes(nonce) {
            // The target as it went out: percent-encoded, from /v1/ on.
            let sent = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let signed = SignedRequest(
                nonce: nonceBytes, method: method,
                target: ResponseSignature.target(path: sent?.percentEncodedPath ?? url.path, query: sent?.percentEncodedQuery),
                body: request.httpBody ?? Data(), userID: userID)
            let failure = verifier.check(
                signature: Self.header(ResponseSignature.signatureHeader, in: answer.headers),
                signedAt: Self.header(ResponseSignature.signedAtHeader, in: answer.headers), request: signed, body: answer.body)
            if let failure, case .enforced = check {
                throw TallyError(.responseNotTrusted, "\(method) \(path): the answer's signature did not verify: \(failure.rawValue)")
            }
            trust = ResponseTrust(verified: failure == nil, failure: failure)
        }
        do {
            return (try TallyAPI.decoder().decode(Response.self, from: answer.body), trust)
        } catch {
            // A 2xx that cannot be read proves nothing: treated as no answer, retried.
            throw TallyError(.serverUnavailable, "\(method) \(path): the answer does not decode: \(error)")
        }
    }

    /// A header's value, whatever the case of its name in `headers`.
    static func header(_ name: String, in headers: [String: String]) -> String? {
        headers[name.lowercased()] ?? headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    static func failure(status: Int, headers: [String: String], body: Data, what: String) -> TallyError {
        let detail = try? TallyAPI.decoder().decode(APIErrorBody.self, from: body).error
        let reason = "\(what): HTTP \(status) \(detail.map { "\($0.code.rawValue): \($0.message)" } ?? "")"
        let requestID = detail?.requestID
        if status == 429 {
            let seconds = headers["retry-after"].flatMap(Int64.init) ?? 1
            return TallyError(.rateLimited, reason, requestID: requestID, retryAfter: TimeInterval(max(1, seconds)))
        }
        if status >= 500 {
            if detail?.code == .verificationUnavailable { return TallyError(.verificationUnavailable, reason, requestID: requestID) }
            return TallyError(.serverUnavailable, reason, requestID: requestID)
        }
        switch detail?.code {
        case .insufficientCredits?:
            return TallyError(.insufficientCredits, reason, currency: detail?.currency, available: detail?.available, requestID: requestID)
        case .verificationFailed?:
            return TallyError(.verificationFailed, reason, requestID: requestID, detail: detail?.verificationCode)
        case .transactionBelongsToAnotherUser?:
            return TallyError(.transactionBelongsToAnotherUser, reason, requestID: requestID)
        case .orderMismatch?:
            return TallyError(.orderFailed, reason, requestID: requestID)
        case .unknownProduct?:
            return TallyError(.productNotFound, reason, requestID: requestID)
        case .reservationClosed?:
            return TallyError(.reservationClosed, reason, requestID: requestID)
        case .unauthorized?:
            return TallyError(.unauthorized, reason, requestID: requestID)
        default:
            return TallyError(.invalidRequest, reason, requestID: requestID)
        }
    }
}
