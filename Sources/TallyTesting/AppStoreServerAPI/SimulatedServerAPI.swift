public import Crypto
public import Foundation
import TallyCore
import TallyVerify

/// One HTTP request to the fake App Store Server API, independent of any HTTP server.
public struct ServerAPIRequest: Sendable {
    /// `GET`, `POST` or `PUT`.
    public var method: String
    /// The path, such as `/inApps/v1/transactions/2000000000000001`.
    public var path: String
    /// The query parameters, in order.
    public var query: [URLQueryItem]
    /// The `Authorization` header.
    public var authorization: String?
    /// The body.
    public var body: Data

    /// Creates a request.
    public init(method: String, path: String, query: [URLQueryItem] = [], authorization: String?, body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
    }
}

/// The answer: an HTTP status and a JSON body (empty for 202, plain text for 401).
public struct ServerAPIResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The body.
    public var body: Data
    /// The body's content type.
    public var contentType: String
    /// Other headers (`Retry-After`).
    public var headers: [String: String] = [:]
}

/// An answer the fake App Store Server API gives instead of the real one, as Apple's servers
/// sometimes do: 429 with `Retry-After`, or a 5xx; for tests of a client's retries.
public struct ServerAPIFault: Sendable, Hashable {
    /// 429, 500 or 503.
    public var status: Int
    /// The `Retry-After` header's seconds, for a 429.
    public var retryAfter: Int?

    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - retryAfter: seconds for `Retry-After`.
    public init(status: Int, retryAfter: Int? = nil) {
        self.status = status
        self.retryAfter = retryAfter
    }

    var response: ServerAPIResponse {
        let code: APIErrorCode = status == 429 ? .rateLimitExceeded : .generalInternalRetryable
        let body =
            (try? AppStoreJSON.encoder().encode(
                APIErrorResponse(code: code, message: status == 429 ? "Rate limit exceeded." : "An unknown error occurred. Please try again."))) ?? Data()
        return ServerAPIResponse(status: status, body: body, contentType: "application/json", headers: retryAfter.map { ["Retry-After": String($0)] } ?? [:])
    }
}

/// Who may call the fake App Store Server API: the team's issuer ID and its In-App Purchase
/// keys' public parts, by key identifier.
public struct ServerAPICredentials: Sendable {
    /// The issuer ID tokens must name.
    public var issuerID: String
    /// The public keys by key identifier.
    public var keys: [String: P256.Signing.PublicKey]

    /// Creates credentials.
    public init(issuerID: String, keys: [String: P256.Signing.PublicKey]) {
        self.issuerID = issuerID
        self.keys = keys
    }
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// The page size of history, refund and notification history answers, as Apple's.
    static let pageSize = 20

    /// The next requests to the App Store Server API get these answers, in order, whatever they ask.
    public func failServerAPI(_ faults: [ServerAPIFault]) {
        serverAPIFaults += faults
    }

    /// How many requests the App Store Server API answered, faults included.
    public var serverAPIRequestCount: Int { serverAPIRequests }

    /// Answers a request to the App Store Server API the way Apple's servers do: the same
    /// paths, JSON shapes and error codes, and 401 for a missing or wrong bearer token.
    ///
    /// Served: Get Transaction Info, Get Transaction History (v2), Get All Subscription Statuses,
    /// Get Refund History (v2), Send Consumption Information (v1), Get Notification History,
    /// Request a Test Notification, Get Test Notification Status, Set App Account Token.
    public func handleServerAPI(_ request: ServerAPIRequest, credentials: ServerAPICredentials) -> ServerAPIResponse {
        serverAPIRequests += 1
        if !serverAPIFaults.isEmpty { return serverAPIFaults.removeFirst().response }
        guard let header = request.authorization, header.hasPrefix("Bearer "),
            case .success = ServerAPIToken.verify(
                String(header.dropFirst("Bearer ".count)), issuerID: credentials.issuerID,
                bundleID: configuration.bundleID, keys: credentials.keys, now: realNow)
        else {
            return ServerAPIResponse(status: 401, body: Data("Unauthenticated\n".utf8), contentType: "text/plain")
        }
        let segments = request.path.split(separator: "/").map(String.init)
        do {
            switch (request.method, segments.count, segments.count > 2 ? segments[1] : "", segments.count > 2 ? segments[2] : "") {
            case ("GET", 4, "v1", "transactions"):
                return try json(transactionInfo(segments[3]))
            case ("GET", 4, "v2", "history"):
                return try json(transactionHistory(segments[3], query: request.query))
            case ("GET", 4, "v1", "subscriptions"):
                return try json(allSubscriptionStatuses(segments[3], query: request.query))
            case ("GET", 5, "v2", "refund") where segments[3] == "lookup":
                return try json(refundHistory(segments[4], query: request.query))
            case ("PUT", 5, "v1", "transactions") where segments[3] == "consumption":
                try sendConsumptionInformation(segments[4], body: request.body)
                return ServerAPIResponse(status: 202, body: Data(), contentType: "application/json")
            case ("PUT", 5, "v1", "transactions") where segments[4] == "appAccountToken":
                try setAppAccountToken(originalTransactionID: segments[3], body: request.body)
                return ServerAPIResponse(status: 200, body: Data(), contentType: "application/json")
            case ("POST", 4, "v1", "notifications") where segments[3] == "history":
                return try json(notificationHistory(body: request.body, query: request.query))
            case ("POST", 4, "v1", "notifications") where segments[3] == "test":
                var response = SendTestNotificationResponse()
                response.testNotificationToken = try requestTestNotification()
                return try json(response)
            case ("GET", 5, "v1", "notifications") where segments[3] == "test":
                return try json(testNotificationStatus(segments[4]))
            default:
                return error(404, APIRequestError(.generalBadRequest, "no such endpoint: \(request.method) \(request.path)"))
            }
        } catch let failure as APIRequestError {
            return error(failure.code.httpStatus ?? 400, failure)
        } catch {
            return self.error(500, APIRequestError(.generalInternal, "\(error)"))
        }
    }

    private func json(_ value: some Encodable) throws -> ServerAPIResponse {
        ServerAPIResponse(status: 200, body: try AppStoreJSON.encoder().encode(value), contentType: "application/json")
    }

    private func error(_ status: Int, _ failure: APIRequestError) -> ServerAPIResponse {
        let body = (try? AppStoreJSON.encoder().encode(failure.response)) ?? Data()
        return ServerAPIResponse(status: status, body: body, contentType: "application/json")
    }

    private func record(_ id: String) throws(APIRequestError) -> TransactionRecord {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
            throw APIRequestError(.invalidTransactionID, "Invalid transaction id.")
        }
        guard let index = state.transactionIndex(id) else {
            throw APIRequestError(.transactionIDNotFound, "Transaction id not found.")
        }
        return state.transactions[index]
    }

    private func signedJWS(_ record: TransactionRecord) throws -> String {
        try signed(record).jws
    }

    private func transactionInfo(_ id: String) throws -> TransactionInfoResponse {
        var response = TransactionInfoResponse()
        response.signedTransactionInfo = try signedJWS(record(id))
        return response
    }

    /// Pages of 20, `revision` an opaque offset.
    private func page(_ records: [TransactionRecord], revision: String?) throws -> (items: [String], revision: String, hasMore: Bool) {
        var offset = 0
        if let revision {
            guard let bytes = Base64.decode(revision.utf8, alphabet: .url),
                let decoded = Int(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "offset:", with: "")),
                decoded >= 0
            else {
                throw APIRequestError(.invalidRequestRevision, "Invalid request revision.")
            }
            offset = decoded
        }
        let slice = records.dropFirst(offset).prefix(Self.pageSize)
        let next = offset + slice.count
        return (try slice.map(signedJWS), Base64.encodeURL(Data("offset:\(next)".utf8)), next < records.count)
    }

    private func transactionHistory(_ id: String, query: [URLQueryItem]) throws -> HistoryResponse {
        _ = try record(id)
        let filter = try TransactionHistoryRequest(queryItems: query)
        var records = state.transactions.filter { record in
            let payload = record.payload
            if let start = filter.startDate, let date = payload.purchaseDate, date < start { return false }
            if let end = filter.endDate, let date = payload.purchaseDate, date >= end { return false }
            if let products = filter.productIds, !products.isEmpty, !products.contains(payload.productID ?? "") { return false }
            if let types = filter.productTypes, !types.isEmpty, !types.contains(where: { Self.matches($0, payload.type) }) { return false }
            if let groups = filter.subscriptionGroupIdentifiers, !groups.isEmpty, !groups.contains(payload.subscriptionGroupIdentifier ?? "") { return false }
            if let ownership = filter.inAppOwnershipType, payload.inAppOwnershipType != ownership { return false }
            if let revoked = filter.revoked, revoked != (payload.revocationDate != nil) { return false }
            return true
        }
        if filter.sort?.rawValue == "DESCENDING" { records.reverse() }
        let page = try self.page(records, revision: query.first { $0.name == "revision" }?.value)
        var response = HistoryResponse()
        response.revision = page.revision
        response.hasMore = page.hasMore
        response.bundleID = configuration.bundleID
        response.appAppleID = configuration.appAppleID
        response.environment = configuration.environment
        response.signedTransactions = page.items
        return response
    }

    private static func matches(_ type: TransactionHistoryRequest.ProductType, _ payloadType: AppStoreProductType?) -> Bool {
        switch type.rawValue {
        case "AUTO_RENEWABLE": return payloadType == .autoRenewableSubscription
        case "NON_RENEWABLE": return payloadType == .nonRenewingSubscription
        case "CONSUMABLE": return payloadType == .consumable
        case "NON_CONSUMABLE": return payloadType == .nonConsumable
        default: return false
        }
    }

    private func allSubscriptionStatuses(_ id: String, query: [URLQueryItem]) throws -> StatusResponse {
        _ = try record(id)
        var wanted: Set<Int32> = []
        for item in query where item.name == "status" {
            guard let value = item.value.flatMap(Int32.init), (1...5).contains(value) else {
                throw APIRequestError(.invalidStatus, "Invalid status.")
            }
            wanted.insert(value)
        }
        var groups: [String: [LastTransactionsItem]] = [:]
        var order: [String] = []
        for subscription in state.subscriptions where wanted.isEmpty || wanted.contains(subscription.status.rawValue) {
            var item = LastTransactionsItem()
            item.status = subscription.status
            item.originalTransactionID = subscription.originalTransactionID
            item.signedTransactionInfo = try signedTransaction(subscription.latestTransactionID).jws
            item.signedRenewalInfo = try sign(renewalPayload(subscription))
            if groups[subscription.groupID] == nil { order.append(subscription.groupID) }
            groups[subscription.groupID, default: []].append(item)
        }
        var response = StatusResponse()
        response.environment = configuration.environment
        response.bundleID = configuration.bundleID
        response.appAppleID = configuration.appAppleID
        response.data = order.map { group in
            var item = SubscriptionGroupIdentifierItem()
            item.subscriptionGroupIdentifier = group
            item.lastTransactions = groups[group]
            return item
        }
        return response
    }

    private func refundHistory(_ id: String, query: [URLQueryItem]) throws -> RefundHistoryResponse {
        _ = try record(id)
        // Refunds only (not family revocations), oldest refund first.
        let refunded = state.transactions
            .filter { $0.payload.revocationDate != nil && $0.payload.revocationType != .familyRevoke }
            .sorted { ($0.payload.revocationDate ?? .distantPast) < ($1.payload.revocationDate ?? .distantPast) }
        let page = try self.page(refunded, revision: query.first { $0.name == "revision" }?.value)
        var response = RefundHistoryResponse()
        response.signedTransactions = page.items
        response.revision = page.revision
        response.hasMore = page.hasMore
        return response
    }

    private func sendConsumptionInformation(_ id: String, body: Data) throws {
        let transaction = try record(id)
        // Consumption information is for consumables and auto-renewable subscriptions.
        guard transaction.payload.type == .consumable || transaction.payload.type == .autoRenewableSubscription else {
            throw APIRequestError(.invalidTransactionTypeNotSupported, "Invalid request. The transaction's product type is not supported.")
        }
        let request: ConsumptionRequest
        do {
            request = try AppStoreJSON.decoder().decode(ConsumptionRequest.self, from: body)
        } catch {
            throw APIRequestError(.generalBadRequest, "Invalid request body.")
        }
        if let first = request.validationErrors().first {
            throw APIRequestError(first, "Invalid request.")
        }
        state.consumptionInformation.append(ConsumptionRecord(transactionID: id, receivedAt: now, body: body))
        try save()
    }

    private func setAppAccountToken(originalTransactionID: String, body: Data) throws {
        let transaction = try record(originalTransactionID)
        let request = try? AppStoreJSON.decoder().decode(UpdateAppAccountTokenRequest.self, from: body)
        guard let token = request?.appAccountToken, let uuid = UUID(uuidString: token) else {
            throw APIRequestError(.invalidAppAccountTokenUUID, "Invalid request. The app account token must be a UUID.")
        }
        guard transaction.payload.originalTransactionID == originalTransactionID else {
            throw APIRequestError(.transactionIDNotOriginalTransactionID, "Invalid request. The transaction is not an original transaction.")
        }
        guard transaction.payload.inAppOwnershipType != .familyShared else {
            throw APIRequestError(.familyTransactionNotSupported, "Invalid request. Family Sharing transactions are not supported.")
        }
        let value = uuid.uuidString.lowercased()
        for index in state.transactions.indices where state.transactions[index].payload.originalTransactionID == originalTransactionID {
            state.transactions[index].payload.appAccountToken = value
        }
        if let index = state.subscriptionIndex(originalTransactionID: originalTransactionID) {
            state.subscriptions[index].appAccountToken = value
        }
        try save()
    }

    private func notificationHistory(body: Data, query: [URLQueryItem]) throws -> NotificationHistoryResponse {
        guard let request = try? AppStoreJSON.decoder().decode(NotificationHistoryRequest.self, from: body) else {
            throw APIRequestError(.generalBadRequest, "Invalid request body.")
        }
        guard let start = request.startDate else { throw APIRequestError(.invalidStartDate, "Invalid request. The start date is missing.") }
        guard let end = request.endDate else { throw APIRequestError(.invalidEndDate, "Invalid request. The end date is missing.") }
        guard start <= end else { throw APIRequestError(.startDateAfterEndDate, "Invalid request. The start date is after the end date.") }
        guard start >= now.addingTimeInterval(-180 * 86_400) else {
            throw APIRequestError(.startDateTooFarInPast, "Invalid request. The start date is more than 180 days in the past.")
        }
        guard request.notificationType == nil || request.transactionID == nil else {
            throw APIRequestError(.multipleFiltersSupplied, "Invalid request. Supply either a transaction id or a notification type.")
        }
        let matching = state.notifications.filter { record in
            guard record.createdAt >= start, record.createdAt < end else { return false }
            if let type = request.notificationType, record.type != type { return false }
            if let subtype = request.notificationSubtype, record.subtype != subtype { return false }
            if let transaction = request.transactionID, record.transactionID != transaction { return false }
            if request.onlyFailures == true, record.delivered { return false }
            return true
        }
        var offset = 0
        if let token = query.first(where: { $0.name == "paginationToken" })?.value {
            guard let bytes = Base64.decode(token.utf8, alphabet: .url),
                let decoded = Int(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "notifications:", with: "")),
                decoded >= 0
            else {
                throw APIRequestError(.invalidPaginationToken, "Invalid request. The pagination token is invalid.")
            }
            offset = decoded
        }
        let slice = matching.dropFirst(offset).prefix(Self.pageSize)
        var response = NotificationHistoryResponse()
        response.notificationHistory = slice.map { record in
            var item = NotificationHistoryResponseItem()
            item.signedPayload = record.signedPayload
            item.sendAttempts = record.attempts.map(Self.attempt)
            return item
        }
        response.hasMore = offset + slice.count < matching.count
        response.paginationToken = response.hasMore == true ? Base64.encodeURL(Data("notifications:\(offset + slice.count)".utf8)) : nil
        return response
    }

    private func testNotificationStatus(_ token: String) throws -> CheckTestNotificationResponse {
        guard let record = state.notifications.first(where: { $0.testToken == token }) else {
            throw APIRequestError(
                .testNotificationNotFound, "Either the test notification token is expired or the notification and status are not yet available.")
        }
        var response = CheckTestNotificationResponse()
        response.signedPayload = record.signedPayload
        response.sendAttempts = record.attempts.map(Self.attempt)
        return response
    }

    private static func attempt(_ attempt: DeliveryAttempt) -> SendAttemptItem {
        var item = SendAttemptItem()
        item.attemptDate = attempt.date
        item.sendAttemptResult = SendAttemptResult(rawValue: attempt.result)
        return item
    }

    /// Consumption information received for a transaction, as JSON bodies, oldest first.
    public func consumptionInformation(transactionID: String) -> [Data] {
        state.consumptionInformation.filter { $0.transactionID == transactionID }.map(\.body)
    }
}
