public import Foundation
public import TallyCore
public import TallyVerify

/// A typed client of the App Store Server API: ES256 bearer tokens from the app's key (reused
/// until a minute before they expire), production then sandbox, retries with backoff on 429
/// and 5xx honouring `Retry-After`, timeouts, and every signed answer verified with TallyVerify
/// before it is returned.
///
/// Every call has a budget (``AppStoreServerAPIConfiguration/callBudget``, 10 seconds) that its
/// tries, environments and waits share: an Apple that refuses connections or never answers is
/// reported as `unavailable` within it. Calls made inside ``sharingBudget(_:)`` share one.
///
/// ```swift
/// let apple = AppStoreServerClient(configuration: configuration, verifier: verifier)
/// let found = try await apple.transactionInfo("2000000123456789")   // verified, with its JWS
/// ```
public actor AppStoreServerClient {
    /// A transaction Apple returned, verified, with the JWS it came as.
    public struct SignedTransaction: Sendable, Hashable {
        /// The compact JWS, as Apple sent it.
        public let jws: String
        /// Its verified payload.
        public let verified: Verified<TransactionPayload>
        /// The environment whose API answered.
        public let environment: AppStoreEnvironment
    }

    /// A page of a customer's transaction history (Get Transaction History v2).
    public struct HistoryPage: Sendable {
        /// The transactions, verified.
        public let transactions: [SignedTransaction]
        /// The token of the next page.
        public let revision: String?
        /// Whether there is a next page.
        public let hasMore: Bool
    }

    /// One subscription's state as Apple reports it (Get All Subscription Statuses): its latest
    /// transaction and renewal info, verified.
    public struct SubscriptionState: Sendable {
        /// The subscription group.
        public let groupID: String?
        /// Active, expired, in billing retry, in grace period, or revoked.
        public let status: SubscriptionStatus?
        /// The latest transaction.
        public let transaction: SignedTransaction
        /// The renewal info and its JWS, when Apple sent one.
        public let renewal: (jws: String, verified: Verified<RenewalInfoPayload>)?
    }

    /// A page of the notifications Apple sent (Get Notification History).
    public struct NotificationPage: Sendable {
        /// The notifications, verified with the transaction and renewal they carry, and each
        /// one's JWS.
        public let notifications: [(jws: String, verified: VerifiedNotification)]
        /// The token of the next page.
        public let paginationToken: String?
        /// Whether there is a next page.
        public let hasMore: Bool
    }

    private let configuration: AppStoreServerAPIConfiguration
    private let transport: any AppleHTTPTransport
    private let verifier: SignedDataVerifier
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private var token: (value: String, expiresAt: Date)?

    /// The deadline the calls of ``sharingBudget(_:)`` share.
    @TaskLocal private static var sharedDeadline: ContinuousClock.Instant?

    /// - Parameters:
    ///   - configuration: the key, the bundle and where Apple is.
    ///   - transport: how Apple is reached; AsyncHTTPClient by default.
    ///   - verifier: verifies what Apple signs (the server's own).
    ///   - sleep: waits between tries; `Task.sleep` by default.
    public init(
        configuration: AppStoreServerAPIConfiguration, transport: any AppleHTTPTransport = AsyncHTTPClientTransport(),
        verifier: SignedDataVerifier,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Task.sleep(nanoseconds: UInt64($0 * 1e9)) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.verifier = verifier
        self.now = configuration.now
        self.sleep = sleep
    }

    /// Runs `body` with one budget, ``AppStoreServerAPIConfiguration/callBudget``, for every
    /// call it makes to Apple: a request to Tally that asks Apple several things answers within
    /// it whatever Apple does. Inside another `sharingBudget`, the outer budget holds.
    public nonisolated func sharingBudget<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        if Self.sharedDeadline != nil { return try await body() }
        return try await Self.$sharedDeadline.withValue(ContinuousClock.now.advanced(by: .seconds(configuration.callBudget))) {
            try await body()
        }
    }

    // MARK: - Endpoints

    /// Get Transaction Info: one transaction by its id, from the first environment that knows it.
    /// - Throws: ``AppStoreServerAPIError``; `notFound` when no environment knows it.
    public func transactionInfo(_ transactionID: String) async throws(AppStoreServerAPIError) -> SignedTransaction {
        let (body, environment) = try await call("GET", "/inApps/v1/transactions/\(try Self.segment(transactionID))")
        let response: TransactionInfoResponse = try Self.decode(body)
        guard let jws = response.signedTransactionInfo else {
            throw AppStoreServerAPIError(.invalidAnswer, "Get Transaction Info answered without signedTransactionInfo")
        }
        return try await verified(jws, environment: environment)
    }

    /// Get Transaction History (v2): one page of the customer's transactions.
    /// - Parameters:
    ///   - transactionID: any transaction of the customer.
    ///   - request: filters and order.
    ///   - revision: the token of the page, from the previous page; `nil` for the first.
    public func transactionHistory(
        _ transactionID: String, request: TransactionHistoryRequest = TransactionHistoryRequest(), revision: String? = nil
    ) async throws(AppStoreServerAPIError) -> HistoryPage {
        let (body, environment) = try await call(
            "GET", "/inApps/v2/history/\(try Self.segment(transactionID))", query: request.queryItems(revision: revision))
        let response: HistoryResponse = try Self.decode(body)
        var transactions: [SignedTransaction] = []
        for jws in response.signedTransactions ?? [] { transactions.append(try await verified(jws, environment: environment)) }
        return HistoryPage(transactions: transactions, revision: response.revision, hasMore: response.hasMore ?? false)
    }

    /// Get All Subscription Statuses: every subscription of the customer who made the
    /// transaction, each latest transaction and renewal info verified.
    public func subscriptionStatuses(_ transactionID: String) async throws(AppStoreServerAPIError) -> [SubscriptionState] {
        let (body, environment) = try await call("GET", "/inApps/v1/subscriptions/\(try Self.segment(transactionID))")
        let response: StatusResponse = try Self.decode(body)
        var states: [SubscriptionState] = []
        for group in response.data ?? [] {
            for item in group.lastTransactions ?? [] {
                guard let jws = item.signedTransactionInfo else { continue }
                var renewal: (jws: String, verified: Verified<RenewalInfoPayload>)?
                if let signed = item.signedRenewalInfo {
                    renewal = (signed, try Self.accept(await verifier.verifyRenewalInfo(signed), "a subscription's renewal info"))
                }
                states.append(
                    SubscriptionState(
                        groupID: group.subscriptionGroupIdentifier, status: item.status,
                        transaction: try await verified(jws, environment: environment), renewal: renewal))
            }
        }
        return states
    }

    /// Get Refund History (v2): one page of the customer's refunded transactions.
    public func refundHistory(_ transactionID: String, revision: String? = nil) async throws(AppStoreServerAPIError) -> HistoryPage {
        let query = revision.map { [URLQueryItem(name: "revision", value: $0)] } ?? []
        let (body, environment) = try await call("GET", "/inApps/v2/refund/lookup/\(try Self.segment(transactionID))", query: query)
        let response: RefundHistoryResponse = try Self.decode(body)
        var transactions: [SignedTransaction] = []
        for jws in response.signedTransactions ?? [] { transactions.append(try await verified(jws, environment: environment)) }
        return HistoryPage(transactions: transactions, revision: response.revision, hasMore: response.hasMore ?? false)
    }

    /// Get Notification History: one page of the notifications Apple sent in a window, each verified.
    /// - Parameters:
    ///   - request: the window and filters.
    ///   - paginationToken: the token of the page, from the previous page; `nil` for the first.
    ///   - environment: whose notifications; the first configured by default.
    public func notificationHistory(
        _ request: NotificationHistoryRequest, paginationToken: String? = nil, environment: AppStoreEnvironment? = nil
    ) async throws(AppStoreServerAPIError) -> NotificationPage {
        let query = paginationToken.map { [URLQueryItem(name: "paginationToken", value: $0)] } ?? []
        let (body, _) = try await call(
            "POST", "/inApps/v1/notifications/history", query: query, body: try Self.encode(request), only: environment)
        let response: NotificationHistoryResponse = try Self.decode(body)
        var notifications: [(jws: String, verified: VerifiedNotification)] = []
        for item in response.notificationHistory ?? [] {
            guard let jws = item.signedPayload else { continue }
            notifications.append((jws, try Self.accept(await verifier.verifyNotification(jws, includingSignedData: true), "a notification")))
        }
        return NotificationPage(notifications: notifications, paginationToken: response.paginationToken, hasMore: response.hasMore ?? false)
    }

    /// Send Consumption Information for a consumable's refund request.
    public func sendConsumptionInformation(_ transactionID: String, _ request: ConsumptionRequest) async throws(AppStoreServerAPIError) {
        _ = try await call("PUT", "/inApps/v1/transactions/consumption/\(try Self.segment(transactionID))", body: try Self.encode(request))
    }

    /// Request a Test Notification: Apple sends one to the server's notification URL.
    /// - Returns: its token, for Get Test Notification Status.
    public func requestTestNotification(environment: AppStoreEnvironment? = nil) async throws(AppStoreServerAPIError) -> String {
        let (body, _) = try await call("POST", "/inApps/v1/notifications/test", only: environment)
        let response: SendTestNotificationResponse = try Self.decode(body)
        guard let token = response.testNotificationToken else {
            throw AppStoreServerAPIError(.invalidAnswer, "Request a Test Notification answered without testNotificationToken")
        }
        return token
    }

    /// Set App Account Token: binds an original transaction to the app's user.
    public func setAppAccountToken(originalTransactionID: String, token: UUID) async throws(AppStoreServerAPIError) {
        _ = try await call(
            "PUT", "/inApps/v1/transactions/\(try Self.segment(originalTransactionID))/appAccountToken",
            body: try Self.encode(UpdateAppAccountTokenRequest(appAccountToken: token)))
    }

    // MARK: - Calls

    /// Sends the call to each environment in turn until one knows the subject (404 goes on to
    /// the next); tries each up to `maximumAttempts` times on 429, 5xx and no answer, all within
    /// the call's budget (or the budget it shares).
    private func call(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, only: AppStoreEnvironment? = nil
    ) async throws(AppStoreServerAPIError) -> (Data, AppStoreEnvironment) {
        let environments = configuration.environments.filter { only == nil || $0.environment == only }
        guard !environments.isEmpty else {
            throw AppStoreServerAPIError(.invalidRequest, "no App Store Server API is configured for \(only?.rawValue ?? "any environment")")
        }
        let deadline = Self.sharedDeadline ?? ContinuousClock.now.advanced(by: .seconds(configuration.callBudget))
        var notFound: AppStoreServerAPIError?
        for (environment, baseURL) in environments {
            // One catch-all clause with an `if`, not `catch where`, which Swift 6.3.1's SIL passes crash on in some functions.
            do {
                return (try await attempt(method, baseURL: baseURL, path: path, query: query, body: body, deadline: deadline), environment)
            } catch {
                guard error.kind == .notFound else { throw error }
                notFound = error
            }
        }
        throw notFound!
    }

    private func attempt(
        _ method: String, baseURL: URL, path: String, query: [URLQueryItem], body: Data?, deadline: ContinuousClock.Instant
    ) async throws(AppStoreServerAPIError) -> Data {
        guard var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false) else {
            throw AppStoreServerAPIError(.invalidRequest, "cannot make a URL of \(baseURL) and \(path)")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw AppStoreServerAPIError(.invalidRequest, "cannot make a URL of \(components)") }
        var last: AppStoreServerAPIError?
        for attempt in 1...max(1, configuration.maximumAttempts) {
            let left = Self.seconds(until: deadline)
            guard left > 0 else {
                throw last
                    ?? AppStoreServerAPIError(.unavailable, "no time left to ask \(url.host ?? "Apple") within the budget of \(configuration.callBudget) s")
            }
            var headers = ["authorization": "Bearer \(try bearer())", "accept": "application/json"]
            if body != nil { headers["content-type"] = "application/json" }
            let request = AppleHTTPRequest(method: method, url: url, headers: headers, body: body, timeout: min(configuration.timeout, left))
            let failure: AppStoreServerAPIError
            do {
                let response = try await transport.send(request)
                if (200..<300).contains(response.status) { return response.body }
                failure = Self.failure(response)
                if response.status == 401 { token = nil }
            } catch {
                failure = AppStoreServerAPIError(.unavailable, "no answer from \(url.host ?? "Apple"): \(error)")
            }
            guard Self.isRetryable(failure), attempt < configuration.maximumAttempts else { throw failure }
            let backoff = min(configuration.maximumBackoff, pow(2, Double(attempt - 1)) * Double.random(in: 0.5...1.0))
            let wait = failure.retryAfter ?? backoff
            // A wait that leaves no time for the next try is not waited.
            guard wait <= configuration.maximumBackoff, wait < Self.seconds(until: deadline) else { throw failure }
            do {
                try await sleep(wait)
            } catch {
                throw failure
            }
            last = failure
        }
        throw last ?? AppStoreServerAPIError(.unavailable, "no try was made")
    }

    private static func seconds(until deadline: ContinuousClock.Instant) -> TimeInterval {
        let left = ContinuousClock.now.duration(to: deadline).components
        return Double(left.seconds) + Double(left.attoseconds) / 1e18
    }

    /// The bearer token, reused until a minute before it expires.
    private func bearer() throws(AppStoreServerAPIError) -> String {
        let now = now()
        if let token, token.expiresAt.timeIntervalSince(now) > 60 { return token.value }
        let lifetime: TimeInterval = 20 * 60
        do {
            let value = try ServerAPIToken.sign(
                issuerID: configuration.issuerID, keyID: configuration.keyID, bundleID: configuration.bundleID, key: configuration.privateKey,
                issuedAt: now, lifetime: lifetime)
            token = (value, now.addingTimeInterval(lifetime))
            return value
        } catch {
            throw AppStoreServerAPIError(.invalidRequest, "cannot sign the App Store Server API token: \(error)")
        }
    }

    private static func failure(_ response: AppleHTTPResponse) -> AppStoreServerAPIError {
        let apiError = try? AppStoreJSON.decoder().decode(APIErrorResponse.self, from: response.body)
        let code = apiError?.code
        let message = apiError?.errorMessage ?? String(decoding: response.body.prefix(200), as: UTF8.self)
        let status = response.status
        switch status {
        case 401: return AppStoreServerAPIError(.unauthorized, "Apple refused the key: \(message)", status: status, apiErrorCode: code)
        case 404: return AppStoreServerAPIError(.notFound, message, status: status, apiErrorCode: code)
        case 429:
            let retryAfter = response.headers["retry-after"].flatMap(TimeInterval.init)
            return AppStoreServerAPIError(.rateLimited, message, status: status, apiErrorCode: code, retryAfter: retryAfter)
        case 500...599: return AppStoreServerAPIError(.unavailable, message, status: status, apiErrorCode: code)
        default: return AppStoreServerAPIError(.invalidRequest, message, status: status, apiErrorCode: code)
        }
    }

    private static func isRetryable(_ failure: AppStoreServerAPIError) -> Bool {
        switch failure.kind {
        case .rateLimited, .unavailable: true
        // Apple names some 404s retryable: the account or app is not found yet.
        case .notFound: failure.apiErrorCode?.isRetryable == true
        default: false
        }
    }

    // MARK: - Reading answers

    private func verified(_ jws: String, environment: AppStoreEnvironment) async throws(AppStoreServerAPIError) -> SignedTransaction {
        SignedTransaction(jws: jws, verified: try Self.accept(await verifier.verifyTransaction(jws), "a transaction"), environment: environment)
    }

    @discardableResult
    private static func accept<Value>(_ result: VerificationResult<Value>, _ what: String) throws(AppStoreServerAPIError) -> Value {
        switch result {
        case .valid(let value): return value
        case .invalid(let failure):
            throw AppStoreServerAPIError(.invalidAnswer, "\(what) from Apple did not verify: \(failure)", verification: failure)
        }
    }

    private static func decode<Value: Decodable>(_ body: Data) throws(AppStoreServerAPIError) -> Value {
        do {
            return try AppStoreJSON.decoder().decode(Value.self, from: body)
        } catch {
            throw AppStoreServerAPIError(.invalidAnswer, "Apple's answer is not a \(Value.self): \(error)")
        }
    }

    private static func encode(_ value: some Encodable) throws(AppStoreServerAPIError) -> Data {
        do {
            return try AppStoreJSON.encoder().encode(value)
        } catch {
            throw AppStoreServerAPIError(.invalidRequest, "cannot encode \(type(of: value)): \(error)")
        }
    }

    /// An id as a path segment: digits only, so nothing can change the path.
    private static func segment(_ id: String) throws(AppStoreServerAPIError) -> String {
        guard (1...20).contains(id.utf8.count), id.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw AppStoreServerAPIError(.invalidRequest, "a transaction id is 1 to 20 digits, not \(id.prefix(40))")
        }
        return id
    }
}
