import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import TallyTesting
import TallyTestingServer
import TallyVerify
import Testing

/// The App Store Server API client against the simulated App Store over real HTTP on loopback
/// (Apple's paths, JSON and error answers, its JWT check), and the purchase endpoint that uses
/// it: a bare transaction id is fetched from Apple, verified and granted once.
@Suite(.timeLimit(.minutes(2))) struct AppStoreServerClientTests {
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    static let keyID = "TALLYKEY01"

    /// The waits between tries, recorded instead of waited.
    final class Sleeps: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [TimeInterval] = []
        var all: [TimeInterval] { lock.withLock { recorded } }
        func sleep(_ seconds: TimeInterval) async throws { lock.withLock { recorded.append(seconds) } }
    }

    /// Apple, as far as the client can tell: `store` behind its HTTP face on loopback, taking
    /// tokens signed with `key`.
    static func apple(_ store: SimulatedAppStore, key: P256.Signing.PrivateKey, _ body: @Sendable (URL) async throws -> Void) async throws {
        let credentials = ServerAPICredentials(issuerID: issuerID, keys: [keyID: key.publicKey])
        let app = Application(router: AppStoreSimulatorRouter.build(store: store, credentials: credentials))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }

    static func configuration(key: P256.Signing.PrivateKey, _ environments: [(AppStoreEnvironment, URL)]) -> AppStoreServerAPIConfiguration {
        AppStoreServerAPIConfiguration(
            issuerID: issuerID, keyID: keyID, bundleID: "com.tally.example", privateKey: key, environments: environments.map { ($0.0, $0.1) })
    }

    /// A client whose tokens are dated by the harness's clock, or by `tokenTime`: the simulated
    /// store checks tokens against the time outside its simulation, which its advances do not move.
    static func client(
        _ harness: Harness, _ configuration: AppStoreServerAPIConfiguration, sleeps: Sleeps = Sleeps(),
        transport: any AppleHTTPTransport = AsyncHTTPClientTransport(), verifier: SignedDataVerifier? = nil,
        tokenTime: (@Sendable () -> Date)? = nil
    ) -> AppStoreServerClient {
        let clock = harness.clock
        var configuration = configuration
        configuration.now = tokenTime ?? { clock.now }
        return AppStoreServerClient(configuration: configuration, transport: transport, verifier: verifier ?? harness.verifier, sleep: sleeps.sleep)
    }

    static func error(_ body: () async throws -> Void) async -> AppStoreServerAPIError? {
        do {
            try await body()
            return nil
        } catch let error as AppStoreServerAPIError {
            return error
        } catch {
            Issue.record("not an AppStoreServerAPIError: \(error)")
            return nil
        }
    }

    // MARK: The client

    @Test func aTransactionIsFetchedAndVerified() async throws {
        let harness = try await Harness(.sqlite)
        let key = P256.Signing.PrivateKey()
        let (bought, jws) = try await harness.buy("com.tally.photo.credits.10", for: nil)
        let id = try #require(bought.payload.transactionID)
        try await Self.apple(harness.store, key: key) { url in
            let apple = Self.client(harness, Self.configuration(key: key, [(.sandbox, url)]))
            let found = try await apple.transactionInfo(id)
            #expect(found.verified.payload.transactionID == id)
            #expect(found.verified.payload.productID == "com.tally.photo.credits.10")
            #expect(found.environment == .sandbox)
            #expect(found.jws != jws, "Apple signs it anew for each answer")
        }
    }

    @Test func productionIsAskedFirstThenTheSandbox() async throws {
        let harness = try await Harness(.sqlite)
        let production = try SimulatedAppStore(
            configuration: .init(catalog: Harness.storeCatalog, bundleID: "com.tally.example", appAppleID: 6_450_000_001, environment: .production),
            authority: Harness.authority, time: .manual(start: Harness.start))
        let key = P256.Signing.PrivateKey()
        let (bought, _) = try await harness.buy("com.tally.photo.credits.10", for: nil)
        let id = try #require(bought.payload.transactionID)
        try await Self.apple(production, key: key) { productionURL in
            try await Self.apple(harness.store, key: key) { sandboxURL in
                let apple = Self.client(harness, Self.configuration(key: key, [(.production, productionURL), (.sandbox, sandboxURL)]))
                let found = try await apple.transactionInfo(id)
                #expect(found.environment == .sandbox, "a TestFlight purchase: production does not know it")
                #expect(await production.serverAPIRequestCount == 1)

                let missing = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
                #expect(missing?.kind == .notFound)
                #expect(missing?.apiErrorCode == .transactionIDNotFound)
                #expect(await production.serverAPIRequestCount == 2, "a 404 is not retried in the same environment")
            }
        }
    }

    @Test func aWrongKeyIsUnauthorizedAndNotRetried() async throws {
        let harness = try await Harness(.sqlite)
        let key = P256.Signing.PrivateKey()
        try await Self.apple(harness.store, key: key) { url in
            let apple = Self.client(harness, Self.configuration(key: P256.Signing.PrivateKey(), [(.sandbox, url)]))
            let error = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
            #expect(error?.kind == .unauthorized)
            #expect(error?.status == 401)
            #expect(await harness.store.serverAPIRequestCount == 1)
        }
    }

    @Test func a429IsRetriedAfterItsRetryAfterAndA503AfterABackoff() async throws {
        let harness = try await Harness(.sqlite)
        let key = P256.Signing.PrivateKey()
        let (bought, _) = try await harness.buy("com.tally.photo.credits.10", for: nil)
        await harness.store.failServerAPI([ServerAPIFault(status: 429, retryAfter: 2), ServerAPIFault(status: 503)])
        try await Self.apple(harness.store, key: key) { url in
            let sleeps = Sleeps()
            let apple = Self.client(harness, Self.configuration(key: key, [(.sandbox, url)]), sleeps: sleeps)
            let found = try await apple.transactionInfo(try #require(bought.payload.transactionID))
            #expect(found.verified.payload.productID == "com.tally.photo.credits.10")
            #expect(await harness.store.serverAPIRequestCount == 3)
            #expect(sleeps.all.count == 2)
            #expect(sleeps.all.first == 2, "Retry-After is honoured")
            #expect((0.5...2).contains(sleeps.all.last ?? 0), "the second try's backoff: \(sleeps.all)")
        }
    }

    @Test func fiveHundredsOnEveryTryAreUnavailableAndALongRetryAfterEndsTheTries() async throws {
        let harness = try await Harness(.sqlite)
        let key = P256.Signing.PrivateKey()
        await harness.store.failServerAPI(Array(repeating: ServerAPIFault(status: 500), count: 3))
        try await Self.apple(harness.store, key: key) { url in
            let apple = Self.client(harness, Self.configuration(key: key, [(.sandbox, url)]))
            let down = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
            #expect(down?.kind == .unavailable)
            #expect(down?.apiErrorCode == .generalInternalRetryable)
            #expect(await harness.store.serverAPIRequestCount == 3, "maximumAttempts")

            await harness.store.failServerAPI([ServerAPIFault(status: 429, retryAfter: 120)])
            let limited = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
            #expect(limited?.kind == .rateLimited)
            #expect(limited?.retryAfter == 120)
            #expect(await harness.store.serverAPIRequestCount == 4, "a wait beyond maximumBackoff is not waited")
        }
    }

    @Test func noAnswerIsRetriedThenUnavailable() async throws {
        let harness = try await Harness(.sqlite)
        // A port nobody listens on.
        let closed = URL(string: "http://127.0.0.1:9")!
        let sleeps = Sleeps()
        var configuration = Self.configuration(key: P256.Signing.PrivateKey(), [(.sandbox, closed)])
        configuration.timeout = 2
        let apple = Self.client(harness, configuration, sleeps: sleeps)
        let error = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
        #expect(error?.kind == .unavailable)
        #expect(error?.status == nil)
        #expect(sleeps.all.count == 2)
    }

    @Test func anAnswerThatDoesNotVerifyIsRefused() async throws {
        let harness = try await Harness(.sqlite)
        let key = P256.Signing.PrivateKey()
        let (bought, _) = try await harness.buy("com.tally.photo.credits.10", for: nil)
        let stranger = try TestCertificateAuthority(profile: .init(issuedAt: Harness.start.addingTimeInterval(-86_400)))
        let distrusting = SignedDataVerifier(
            .init(bundleID: .equals("com.tally.example"), appAppleID: .equals(6_450_000_001), environments: [.sandbox], rootCertificates: [stranger.root]),
            now: { Harness.start })
        try await Self.apple(harness.store, key: key) { url in
            let apple = Self.client(harness, Self.configuration(key: key, [(.sandbox, url)]), verifier: distrusting)
            let error = await Self.error { _ = try await apple.transactionInfo(try #require(bought.payload.transactionID)) }
            #expect(error?.kind == .invalidAnswer)
            #expect(error?.verification != nil)
        }
    }

    /// Counts the bearer tokens it is given and answers 404.
    final class TokenRecorder: AppleHTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var tokens: [String] = []
        var distinct: Int { lock.withLock { Set(tokens).count } }
        func send(_ request: AppleHTTPRequest) async throws -> AppleHTTPResponse {
            lock.withLock { tokens.append(request.headers["authorization"] ?? "") }
            return AppleHTTPResponse(status: 404, body: Data(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#.utf8))
        }
    }

    @Test func aTokenIsReusedUntilAMinuteBeforeItExpires() async throws {
        let harness = try await Harness(.sqlite)
        let recorder = TokenRecorder()
        let apple = Self.client(
            harness, Self.configuration(key: P256.Signing.PrivateKey(), [(.sandbox, URL(string: "http://apple.invalid")!)]), transport: recorder)
        _ = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
        harness.clock.set(Harness.start.addingTimeInterval(18 * 60))
        _ = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
        #expect(recorder.distinct == 1, "a 20-minute token is used for 18 minutes")
        harness.clock.set(Harness.start.addingTimeInterval(19 * 60 + 30))
        _ = await Self.error { _ = try await apple.transactionInfo("2000000000000001") }
        #expect(recorder.distinct == 2, "30 seconds before its expiry it is replaced")
    }

    // MARK: The purchase endpoint

    /// The API with the App Store Server API pointed at `url`.
    static func server(_ api: API, key: P256.Signing.PrivateKey, url: URL?, attempts: Int = 3) -> ServerConfiguration {
        var configuration = API.configuration(harness: api.harness, database: api.database)
        if let url {
            var apple = Self.configuration(key: key, [(.sandbox, url)])
            // Tokens are dated by the time outside the simulation, as the simulated store checks them.
            apple.now = { Harness.start }
            apple.maximumAttempts = attempts
            configuration.appStoreServerAPI = apple
            // These tests are about the purchase endpoint; NotificationCatchUpTests runs the catch-up.
            configuration.notificationCatchUpInterval = nil
        }
        return configuration
    }

    static func available(_ client: some TestClientProtocol, _ token: String) async throws -> Int64? {
        try API.decode(AccountResponse.self, try await client.get("/v1/me", token: token)).balances.first { $0.currency == "credits" }?.available
    }

    static func buy(_ harness: Harness, _ product: String, token: UUID) async throws -> (id: String, jws: String) {
        let options = SimulatedAppStore.PurchaseOptions(appAccountToken: token, quantity: 1, outcome: .success)
        guard case .success(let transaction) = try await harness.store.purchase(product, options: options) else {
            throw TestFailure("purchase did not succeed")
        }
        return (transaction.transactionID, transaction.jws)
    }

    @Test func aBareTransactionIDIsFetchedFromAppleAndGrantedOnceWhateverFormFollows() async throws {
        let api = try await API()
        let key = P256.Signing.PrivateKey()
        try await Self.apple(api.harness.store, key: key) { url in
            try await buildApplication(configuration: Self.server(api, key: key, url: url)).test(.router) { client in
                let user = try await client.newUser()
                let bought = try await Self.buy(api.harness, "com.tally.photo.credits.50", token: user.appAccountToken)
                let first = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(transactionID: bought.id)))
                #expect(first.status == .ok)
                let delivered = try API.decode(PurchaseResponse.self, first)
                #expect(delivered.granted == [Amount(currency: "credits", amount: 50)])
                #expect(!delivered.replayed)

                let again = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(transactionID: bought.id)))
                #expect(try API.decode(PurchaseResponse.self, again).replayed)
                let signed = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: bought.jws)))
                #expect(try API.decode(PurchaseResponse.self, signed).replayed, "the device's own JWS later grants nothing more")
                #expect(try await Self.available(client, user.userToken) == 52)
            }
        }
    }

    @Test func aBareTransactionIDIsRefusedWithAStableCodeAndChangesNothing() async throws {
        let api = try await API()
        let key = P256.Signing.PrivateKey()
        try await Self.apple(api.harness.store, key: key) { url in
            try await buildApplication(configuration: Self.server(api, key: key, url: url, attempts: 1)).test(.router) { client in
                let owner = try await client.newUser()
                let other = try await client.newUser()
                let bought = try await Self.buy(api.harness, "com.tally.photo.credits.10", token: owner.appAccountToken)
                let body = API.body(PurchaseRequest(transactionID: bought.id))

                let stolen = try await client.post("/v1/me/purchases", token: other.userToken, body: body)
                #expect(stolen.status == .conflict)
                #expect(API.errorCode(stolen) == "transaction_belongs_to_another_user")

                let unknown = try await client.post(
                    "/v1/me/purchases", token: owner.userToken, body: API.body(PurchaseRequest(transactionID: "2000000000000001")))
                #expect(unknown.status == .notFound)
                #expect(API.errorCode(unknown) == "transaction_not_found")

                let malformed = try await client.post("/v1/me/purchases", token: owner.userToken, body: API.body(PurchaseRequest(transactionID: "12ab")))
                #expect(malformed.status == .badRequest)

                await api.harness.store.failServerAPI([ServerAPIFault(status: 503)])
                let down = try await client.post("/v1/me/purchases", token: owner.userToken, body: body)
                #expect(down.status == .serviceUnavailable)
                #expect(API.errorCode(down) == "apple_unavailable")
                #expect(try await Self.available(client, owner.userToken) == 2, "the two credits of sign-up, nothing more")
            }
        }
        // Without a key the server does not ask Apple.
        try await buildApplication(configuration: Self.server(api, key: key, url: nil)).test(.router) { client in
            let user = try await client.newUser()
            let response = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(transactionID: "2000000000000001")))
            #expect(response.status == .unprocessableContent)
            #expect(API.errorCode(response) == "apple_not_configured")
        }
    }
}
