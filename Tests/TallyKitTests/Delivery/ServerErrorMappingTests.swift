import Foundation
import TallyCore
import TallyKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the server's answers become ``TallyError``s an app can act on, through a transport that
/// answers what it is told to.
@Suite struct ServerErrorMappingTests {
    /// An ``HTTPTransport`` with one canned answer (or a failure to answer), recording requests.
    final class CannedTransport: HTTPTransport, @unchecked Sendable {
        let status: Int
        let headers: [String: String]
        let body: String
        let failure: URLError?
        private let lock = NSLock()
        private var sent: [URLRequest] = []

        init(status: Int = 200, headers: [String: String] = [:], body: String = "{}", failure: URLError? = nil) {
            (self.status, self.headers, self.body, self.failure) = (status, headers, body, failure)
        }

        var requests: [URLRequest] { lock.withLock { sent } }

        func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data) {
            lock.withLock { sent.append(request) }
            if let failure { throw failure }
            return (status, headers, Data(body.utf8))
        }
    }

    static func delivery(_ transport: CannedTransport) -> ServerDelivery {
        ServerDelivery(
            baseURL: URL(string: "http://127.0.0.1:1/api/")!,
            credentials: .init(userID: "u1", userToken: "secret-token", appAccountToken: UUID()), transport: transport)
    }

    static func error(_ code: String, _ extra: String = "") -> String {
        #"{"error":{"code":"\#(code)","message":"m","request_id":"req-1"\#(extra)}}"#
    }

    static func spendError(_ transport: CannedTransport) async -> TallyError? {
        do {
            _ = try await delivery(transport).spend(SpendOrder(currency: "credits", amount: 5, idempotencyKey: "k1"))
            return nil
        } catch {
            return error
        }
    }

    @Test func insufficientCreditsCarriesTheCurrencyAndWhatIsAvailable() async {
        let transport = CannedTransport(status: 403, body: Self.error("insufficient_credits", #","currency":"credits","available":3"#))
        let error = await Self.spendError(transport)
        #expect(error?.code == .insufficientCredits)
        #expect(error?.currency == "credits")
        #expect(error?.available == 3)
        #expect(error?.requestID == "req-1")
        #expect(error?.isTransient == false)
    }

    @Test(
        arguments: [
            (500, "internal", TallyError.Code.serverUnavailable, true),
            (503, "verification_unavailable", .verificationUnavailable, true),
            (409, "transaction_belongs_to_another_user", .transactionBelongsToAnotherUser, false),
            (422, "verification_failed", .verificationFailed, false),
            (401, "unauthorized", .unauthorized, false),
            (409, "reservation_closed", .reservationClosed, false),
            (400, "invalid_request", .invalidRequest, false),
        ] as [(Int, String, TallyError.Code, Bool)])
    func statusAndCodeMapToATypedError(status: Int, code: String, expected: TallyError.Code, transient: Bool) async {
        let error = await Self.spendError(CannedTransport(status: status, body: Self.error(code)))
        #expect(error?.code == expected)
        #expect(error?.isTransient == transient, "\(String(describing: error))")
    }

    @Test func aRefusedVerificationKeepsTheServersVerifierCode() async {
        let transport = CannedTransport(status: 422, body: Self.error("verification_failed", #","verification_code":"wrong_bundle_id""#))
        let error = await Self.spendError(transport)
        #expect(error?.code == .verificationFailed)
        #expect(error?.detail == "wrong_bundle_id")
    }

    @Test func rateLimitedKeepsRetryAfter() async {
        let error = await Self.spendError(CannedTransport(status: 429, headers: ["retry-after": "7"], body: Self.error("rate_limited")))
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == 7)
        #expect(error?.isTransient == true)
    }

    @Test func noAnswerIsANetworkErrorAndOfflineSaysSo() async {
        #expect(await Self.spendError(CannedTransport(failure: URLError(.timedOut)))?.code == .networkError)
        #expect(await Self.spendError(CannedTransport(failure: URLError(.notConnectedToInternet)))?.code == .networkUnavailable)
    }

    @Test func aSuccessThatDoesNotDecodeIsNoAnswer() async {
        // It proves nothing was done, so it must be retried, never taken as done.
        let error = await Self.spendError(CannedTransport(status: 200, body: "<html>proxy</html>"))
        #expect(error?.code == .serverUnavailable)
        #expect(error?.isTransient == true)
    }

    @Test func requestsCarryTheTokenTheKeyAndTheBasePath() async throws {
        let transport = CannedTransport(status: 403, body: Self.error("insufficient_credits"))
        _ = await Self.spendError(transport)
        let request = try #require(transport.requests.first)
        #expect(request.url?.absoluteString == "http://127.0.0.1:1/api/v1/me/spend")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer secret-token")
        let body = try #require(request.httpBody).map { Character(UnicodeScalar($0)) }
        #expect(String(body).contains(#""idempotency_key":"k1""#))
    }

    @Test func theServersCatalogCarriesANonRenewingSubscriptionsLengthForThePaywall() async throws {
        let paywall = #""paywall":{"title":"Season Pass","description":"","benefits":[],"locale":"en"}"#
        let transport = CannedTransport(
            body: #"{"locale":"en","currencies":[],"products":["#
                + #"{"product_id":"season","kind":"non_renewing","grants":[],"entitlements":["echo.season"],\#(paywall),"duration_days":90},"#
                + #"{"product_id":"monthly","kind":"auto_renewable","grants":[],"entitlements":["pro"],\#(paywall)}]}"#)
        let catalog = try await Self.delivery(transport).catalog(language: .english)
        #expect(catalog.map(\.durationDays) == [90, nil])
    }
}
