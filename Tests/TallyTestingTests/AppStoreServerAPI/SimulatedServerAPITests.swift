import Crypto
import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// The fake App Store Server API: Apple's paths, shapes and error codes, and 401 without a good token.
@Suite struct SimulatedServerAPITests {
    /// A store, a key the API trusts, and requests signed with it; one per test.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    struct Harness {
        let fixture: StoreFixture
        let key = P256.Signing.PrivateKey()
        let credentials: ServerAPICredentials

        init() throws {
            fixture = try StoreFixture()
            credentials = ServerAPICredentials(issuerID: "57246542-96fe-1a63-e053-0824d011072a", keys: ["2X9R4HXF34": key.publicKey])
        }

        func token(
            issuedAt: Date = StoreFixture.start, lifetime: TimeInterval = 1200, bundleID: String = StoreFixture.bundleID,
            issuer: String? = nil, keyID: String = "2X9R4HXF34", signer: P256.Signing.PrivateKey? = nil
        ) throws -> String {
            "Bearer "
                + (try ServerAPIToken.sign(
                    issuerID: issuer ?? credentials.issuerID, keyID: keyID, bundleID: bundleID, key: signer ?? key,
                    issuedAt: issuedAt, lifetime: lifetime))
        }

        func call(
            _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data = Data(), authorization: String? = nil
        ) async throws -> ServerAPIResponse {
            // Tokens are checked against the real clock, which advancing the store does not move.
            let request = ServerAPIRequest(method: method, path: path, query: query, authorization: try authorization ?? token(), body: body)
            return await fixture.store.handleServerAPI(request, credentials: credentials)
        }

        func decode<T: Decodable>(_ type: T.Type, _ response: ServerAPIResponse) throws -> T {
            try AppStoreJSON.decoder().decode(T.self, from: response.body)
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func badTokensGet401() async throws {
        let api = try Harness()
        let bought = try await api.fixture.buy("com.tally.echo.3hours")
        let path = "/inApps/v1/transactions/\(bought.transactionID)"
        let bad: [String?] = [
            nil, "Basic abc", "Bearer not.a.jwt",
            try api.token(issuedAt: StoreFixture.start.addingTimeInterval(-3600)),  // expired
            try api.token(lifetime: 2 * 3600),  // longer than an hour
            try api.token(issuedAt: StoreFixture.start.addingTimeInterval(600)),  // issued in the future
            try api.token(bundleID: "com.other.app"),
            try api.token(issuer: "another-issuer"),
            try api.token(keyID: "UNKNOWNKEY"),
            try api.token(signer: P256.Signing.PrivateKey()),  // right kid, wrong key
        ]
        for authorization in bad {
            let request = ServerAPIRequest(method: "GET", path: path, authorization: authorization)
            let response = await api.fixture.store.handleServerAPI(request, credentials: api.credentials)
            #expect(response.status == 401, "\(authorization ?? "none")")
        }
        #expect(try await api.call("GET", path).status == 200)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func getTransactionInfo() async throws {
        let api = try Harness()
        let bought = try await api.fixture.buy("com.tally.photo.credits.10")
        let response = try await api.call("GET", "/inApps/v1/transactions/\(bought.transactionID)")
        #expect(response.status == 200)
        let info = try api.decode(TransactionInfoResponse.self, response)
        let verified = try await api.fixture.verifier.verifyTransaction(try #require(info.signedTransactionInfo)).get()
        #expect(verified.payload.transactionID == bought.transactionID)

        let missing = try await api.call("GET", "/inApps/v1/transactions/9999999999999999")
        #expect(missing.status == 404)
        #expect(try api.decode(APIErrorResponse.self, missing).code == .transactionIDNotFound)
        let invalid = try await api.call("GET", "/inApps/v1/transactions/abc")
        #expect(invalid.status == 400)
        #expect(try api.decode(APIErrorResponse.self, invalid).code == .invalidTransactionID)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func transactionHistoryPagesByRevision() async throws {
        let api = try Harness()
        var ids: [String] = []
        for _ in 0..<25 { ids.append(try await api.fixture.buy("com.tally.zorya.report.career").transactionID) }
        let first = try api.decode(HistoryResponse.self, try await api.call("GET", "/inApps/v2/history/\(ids[0])"))
        #expect(first.signedTransactions?.count == 20)
        #expect(first.hasMore == true)
        #expect(first.bundleID == StoreFixture.bundleID)
        #expect(first.environment == .sandbox)
        let second = try api.decode(
            HistoryResponse.self,
            try await api.call(
                "GET", "/inApps/v2/history/\(ids[0])", query: [URLQueryItem(name: "revision", value: first.revision)]))
        #expect(second.signedTransactions?.count == 5)
        #expect(second.hasMore == false)
        var seen: [String] = []
        for jws in (first.signedTransactions ?? []) + (second.signedTransactions ?? []) {
            seen.append(try await api.fixture.verifier.verifyTransaction(jws).get().payload.transactionID ?? "")
        }
        #expect(seen == ids)

        let descending = try api.decode(
            HistoryResponse.self,
            try await api.call(
                "GET", "/inApps/v2/history/\(ids[0])", query: [URLQueryItem(name: "sort", value: "DESCENDING")]))
        #expect(try await api.fixture.verifier.verifyTransaction(descending.signedTransactions![0]).get().payload.transactionID == ids.last)
        let badRevision = try await api.call("GET", "/inApps/v2/history/\(ids[0])", query: [URLQueryItem(name: "revision", value: "!!")])
        #expect(try api.decode(APIErrorResponse.self, badRevision).code == .invalidRequestRevision)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func historyFiltersByProductType() async throws {
        let api = try Harness()
        let consumable = try await api.fixture.buy("com.tally.echo.3hours")
        _ = try await api.fixture.buy("com.tally.pro.yearly")
        let filtered = try api.decode(
            HistoryResponse.self,
            try await api.call(
                "GET", "/inApps/v2/history/\(consumable.transactionID)", query: [URLQueryItem(name: "productType", value: "AUTO_RENEWABLE")]))
        #expect(filtered.signedTransactions?.count == 1)
        #expect(try await api.fixture.verifier.verifyTransaction(filtered.signedTransactions![0]).get().payload.productID == "com.tally.pro.yearly")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func allSubscriptionStatuses() async throws {
        let api = try Harness()
        let bought = try await api.fixture.buy("com.tally.pro.monthly")
        let status = try api.decode(StatusResponse.self, try await api.call("GET", "/inApps/v1/subscriptions/\(bought.transactionID)"))
        let item = try #require(status.data?.first?.lastTransactions?.first)
        #expect(item.status == .active)
        #expect(item.originalTransactionID == bought.payload.originalTransactionID)
        #expect(try await api.fixture.verifier.verifyRenewalInfo(try #require(item.signedRenewalInfo)).get().payload.autoRenewStatus == .on)
        let expiredOnly = try api.decode(
            StatusResponse.self,
            try await api.call(
                "GET", "/inApps/v1/subscriptions/\(bought.transactionID)", query: [URLQueryItem(name: "status", value: "2")]))
        #expect(expiredOnly.data?.isEmpty == true)
        let invalid = try await api.call("GET", "/inApps/v1/subscriptions/\(bought.transactionID)", query: [URLQueryItem(name: "status", value: "9")])
        #expect(try api.decode(APIErrorResponse.self, invalid).code == .invalidStatus)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func refundHistoryListsRefundsOldestFirstWithoutFamilyRevocations() async throws {
        let api = try Harness()
        let kept = try await api.fixture.buy("com.tally.echo.3hours")
        let later = try await api.fixture.buy("com.tally.echo.3hours")
        let earlier = try await api.fixture.buy("com.tally.echo.3hours")
        try await api.fixture.store.refund(transactionID: earlier.transactionID)
        try await api.fixture.store.advance(by: .seconds(60))
        try await api.fixture.store.refund(transactionID: later.transactionID)
        let lifetime = try await api.fixture.buy("com.tally.zorya.lifetime")
        let shared = try await api.fixture.store.shareWithFamily(transactionID: lifetime.transactionID)
        try await api.fixture.store.revokeFamilySharing(transactionID: shared.transactionID)
        let history = try api.decode(RefundHistoryResponse.self, try await api.call("GET", "/inApps/v2/refund/lookup/\(kept.transactionID)"))
        var ids: [String] = []
        for jws in history.signedTransactions ?? [] { ids.append(try await api.fixture.verifier.verifyTransaction(jws).get().payload.transactionID ?? "") }
        #expect(ids == [earlier.transactionID, later.transactionID])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aNegativeOrForgedPageTokenIsABadRequestNotACrash() async throws {
        let api = try Harness()
        _ = try await api.fixture.buy("com.tally.echo.3hours")
        var request = NotificationHistoryRequest()
        request.startDate = StoreFixture.start.addingTimeInterval(-86_400)
        request.endDate = StoreFixture.start.addingTimeInterval(86_400)
        for token in [Base64.encodeURL(Data("notifications:-1".utf8)), "!!", Base64.encodeURL(Data("x".utf8))] {
            let response = try await api.call(
                "POST", "/inApps/v1/notifications/history",
                query: [URLQueryItem(name: "paginationToken", value: token)], body: AppStoreJSON.encoder().encode(request))
            #expect(try api.decode(APIErrorResponse.self, response).code == .invalidPaginationToken)
        }
        let bought = try await api.fixture.buy("com.tally.echo.3hours")
        let history = try await api.call(
            "GET", "/inApps/v2/history/\(bought.transactionID)",
            query: [URLQueryItem(name: "revision", value: Base64.encodeURL(Data("offset:-5".utf8)))])
        #expect(try api.decode(APIErrorResponse.self, history).code == .invalidRequestRevision)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func tokensAreCheckedAgainstRealTimeNotTheSimulatedClock() async throws {
        let api = try Harness()
        let bought = try await api.fixture.buy("com.tally.echo.3hours")
        try await api.fixture.store.advance(by: .seconds(30 * 86_400))
        #expect(try await api.call("GET", "/inApps/v1/transactions/\(bought.transactionID)").status == 200)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func consumptionInformationIsValidatedAndRecorded() async throws {
        let api = try Harness()
        let consumable = try await api.fixture.buy("com.tally.photo.credits.10")
        var body = ConsumptionRequest()
        body.customerConsented = true
        body.consumptionStatus = .init(rawValue: 2)
        body.platform = .init(rawValue: 1)
        body.sampleContentProvided = false
        body.deliveryStatus = .init(rawValue: 0)
        body.appAccountToken = ""
        body.accountTenure = .init(rawValue: 1)
        body.playTime = .init(rawValue: 0)
        body.lifetimeDollarsRefunded = .init(rawValue: 0)
        body.lifetimeDollarsPurchased = .init(rawValue: 1)
        body.userStatus = .init(rawValue: 1)
        let accepted = try await api.call("PUT", "/inApps/v1/transactions/consumption/\(consumable.transactionID)", body: AppStoreJSON.encoder().encode(body))
        #expect(accepted.status == 202)
        #expect(await api.fixture.store.consumptionInformation(transactionID: consumable.transactionID).count == 1)

        body.customerConsented = false
        let refused = try await api.call("PUT", "/inApps/v1/transactions/consumption/\(consumable.transactionID)", body: AppStoreJSON.encoder().encode(body))
        #expect(refused.status == 400)
        #expect(try api.decode(APIErrorResponse.self, refused).code == .invalidCustomerConsented)

        body.customerConsented = true
        let subscription = try await api.fixture.buy("com.tally.pro.yearly")
        let forSubscription = try await api.call(
            "PUT", "/inApps/v1/transactions/consumption/\(subscription.transactionID)", body: AppStoreJSON.encoder().encode(body))
        #expect(forSubscription.status == 202)
        let lifetime = try await api.fixture.buy("com.tally.zorya.lifetime")
        let notSupported = try await api.call("PUT", "/inApps/v1/transactions/consumption/\(lifetime.transactionID)", body: AppStoreJSON.encoder().encode(body))
        #expect(try api.decode(APIErrorResponse.self, notSupported).code == .invalidTransactionTypeNotSupported)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func notificationHistoryShowsAttempts() async throws {
        let api = try Harness()
        api.fixture.inbox.script([.status(500)])
        let bought = try await api.fixture.buy("com.tally.echo.3hours")
        try await api.fixture.store.tick()
        try await api.fixture.store.advance(by: .seconds(3600))
        var request = NotificationHistoryRequest()
        request.startDate = StoreFixture.start.addingTimeInterval(-86_400)
        request.endDate = StoreFixture.start.addingTimeInterval(86_400)
        request.transactionID = bought.transactionID
        let response = try api.decode(
            NotificationHistoryResponse.self,
            try await api.call(
                "POST", "/inApps/v1/notifications/history", body: AppStoreJSON.encoder().encode(request)))
        let item = try #require(response.notificationHistory?.first)
        #expect(item.sendAttempts?.map(\.sendAttemptResult) == [.unsuccessfulHTTPResponseCode, .success])
        #expect(try await api.fixture.verifier.verifyNotification(try #require(item.signedPayload)).get().payload.notificationType == .oneTimeCharge)

        request.notificationType = .oneTimeCharge
        let both = try await api.call("POST", "/inApps/v1/notifications/history", body: AppStoreJSON.encoder().encode(request))
        #expect(try api.decode(APIErrorResponse.self, both).code == .multipleFiltersSupplied)
        let noStart = try await api.call("POST", "/inApps/v1/notifications/history", body: Data(#"{"endDate":1767225600000}"#.utf8))
        #expect(try api.decode(APIErrorResponse.self, noStart).code == .invalidStartDate)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func testNotificationAndItsStatus() async throws {
        let api = try Harness()
        let sent = try api.decode(SendTestNotificationResponse.self, try await api.call("POST", "/inApps/v1/notifications/test"))
        let token = try #require(sent.testNotificationToken)
        try await api.fixture.store.tick()
        let status = try api.decode(CheckTestNotificationResponse.self, try await api.call("GET", "/inApps/v1/notifications/test/\(token)"))
        #expect(status.sendAttempts?.first?.sendAttemptResult == .success)
        #expect(try await api.fixture.verifier.verifyNotification(try #require(status.signedPayload)).get().payload.notificationType == .test)
        let unknown = try await api.call("GET", "/inApps/v1/notifications/test/nope")
        #expect(unknown.status == 404)
        #expect(try api.decode(APIErrorResponse.self, unknown).code == .testNotificationNotFound)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func setAppAccountToken() async throws {
        let api = try Harness()
        let bought = try await api.fixture.buy("com.tally.pro.monthly")
        let token = UUID()
        let ok = try await api.call(
            "PUT", "/inApps/v1/transactions/\(bought.transactionID)/appAccountToken",
            body: AppStoreJSON.encoder().encode(UpdateAppAccountTokenRequest(appAccountToken: token)))
        #expect(ok.status == 200)
        #expect(try await api.fixture.store.transaction(bought.transactionID).payload.appAccountTokenUUID == token)
        let renewal = try await api.fixture.verifier.verifyRenewalInfo(try await api.fixture.store.renewalInfo(originalTransactionID: bought.transactionID))
            .get()
        #expect(renewal.payload.appAccountToken == token.uuidString.lowercased())
        let bad = try await api.call("PUT", "/inApps/v1/transactions/\(bought.transactionID)/appAccountToken", body: Data(#"{"appAccountToken":"x"}"#.utf8))
        #expect(try api.decode(APIErrorResponse.self, bad).code == .invalidAppAccountTokenUUID)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func unknownEndpointIs404() async throws {
        let api = try Harness()
        #expect(try await api.call("GET", "/inApps/v9/nothing/here").status == 404)
    }
}
