import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallyServer
import TallyTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An Apple that cannot be reached is reported as `apple_unavailable` well before a device gives
/// up on Tally (TallyKit waits 30 seconds): a refused connection within a few seconds, an Apple
/// that never answers within the call's budget.
@Suite(.timeLimit(.minutes(2))) struct AppleUnreachableTests {
    /// A port nobody listens on.
    static let closed = URL(string: "http://127.0.0.1:9")!

    /// A subscriber whose subscription the server has on record, and so asks Apple about on a refresh.
    static func subscriber(_ api: API, _ client: some TestClientProtocol) async throws -> CreateUserResponse {
        let user = try await client.newUser()
        let bought = try await AppStoreServerClientTests.buy(api.harness, "com.tally.pro.monthly", token: user.appAccountToken)
        let posted = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: bought.jws)))
        #expect(posted.status == .ok)
        return user
    }

    /// Posts and measures how long the answer took.
    static func timed(_ body: () async throws -> TestResponse) async throws -> (TestResponse, Duration) {
        let started = ContinuousClock.now
        let response = try await body()
        return (response, ContinuousClock.now - started)
    }

    @Test func aRefusedConnectionIsAnsweredUnavailableWithinSeconds() async throws {
        let api = try await API()
        let key = P256.Signing.PrivateKey()
        // The server's own defaults: three tries, the default timeouts and budget.
        try await buildApplication(configuration: AppStoreServerClientTests.server(api, key: key, url: Self.closed)).test(.router) { client in
            let user = try await Self.subscriber(api, client)
            let (lookUp, lookUpTook) = try await Self.timed {
                try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(transactionID: "2000000000000001")))
            }
            #expect(lookUp.status == .serviceUnavailable)
            #expect(API.errorCode(lookUp) == "apple_unavailable")
            #expect(lookUpTook < .seconds(10), "a refused connection is not retried until each try's deadline: \(lookUpTook)")

            let (refresh, refreshTook) = try await Self.timed { try await client.post("/v1/me/subscriptions/refresh", token: user.userToken) }
            #expect(refresh.status == .serviceUnavailable)
            #expect(API.errorCode(refresh) == "apple_unavailable")
            #expect(refreshTook < .seconds(10), "\(refreshTook)")
        }
    }

    /// A socket that listens and never answers: the system completes each connection, and
    /// nobody ever reads it.
    final class SilentListener: Sendable {
        let descriptor: Int32
        let url: URL

        init() throws {
            #if canImport(Glibc)
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
            }
            guard socket >= 0, bound == 0, listen(socket, 64) == 0 else { throw TestFailure("cannot listen on loopback") }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            descriptor = socket
            url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        }

        deinit { close(descriptor) }
    }

    @Test func anAppleThatNeverAnswersIsAnsweredUnavailableWithinTheBudget() async throws {
        let api = try await API()
        let key = P256.Signing.PrivateKey()
        let silent = try SilentListener()
        var configuration = AppStoreServerClientTests.server(api, key: key, url: silent.url)
        // A budget of 1.5 s keeps the test short (10 s by default); each try may take 30, so a
        // call the budget did not end would take far longer than any loaded machine adds.
        configuration.appStoreServerAPI?.callBudget = 1.5
        configuration.appStoreServerAPI?.timeout = 30
        try await buildApplication(configuration: configuration).test(.router) { client in
            let user = try await Self.subscriber(api, client)
            let (lookUp, lookUpTook) = try await Self.timed {
                try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(transactionID: "2000000000000001")))
            }
            #expect(lookUp.status == .serviceUnavailable)
            #expect(API.errorCode(lookUp) == "apple_unavailable")
            // Under 15 s, half of one try's 30 s: the 1.5 s budget ended it (with slack for a loaded machine).
            #expect(lookUpTook >= .seconds(1) && lookUpTook < .seconds(15), "Apple is waited for, within the budget: \(lookUpTook)")

            let (refresh, refreshTook) = try await Self.timed { try await client.post("/v1/me/subscriptions/refresh", token: user.userToken) }
            #expect(refresh.status == .serviceUnavailable)
            #expect(API.errorCode(refresh) == "apple_unavailable")
            #expect(refreshTook < .seconds(15), "\(refreshTook)")
        }
        withExtendedLifetime(silent) {}
    }

    @Test func callsInsideOneSharedBudgetEndWithIt() async throws {
        let harness = try await Harness(.sqlite)
        let silent = try SilentListener()
        var configuration = AppStoreServerClientTests.configuration(key: P256.Signing.PrivateKey(), [(.sandbox, silent.url)])
        // A try waits 2 s and the budget is 2.2 s: a second call with a budget of its own would
        // wait 2 s too, one sharing it at most 0.2 s. The gap leaves a loaded machine 1.2 s of slack.
        configuration.timeout = 2
        configuration.callBudget = 2.2
        let apple = AppStoreServerClientTests.client(harness, configuration)
        let (first, second) = await apple.sharingBudget {
            let first = await Self.timedError { _ = try await apple.transactionInfo("2000000000000001") }
            let second = await Self.timedError { _ = try await apple.subscriptionStatuses("2000000000000001") }
            return (first, second)
        }
        #expect(first.error?.kind == .unavailable && second.error?.kind == .unavailable)
        #expect(first.took >= .seconds(1.9), "the first call's try waits its timeout: \(first.took)")
        #expect(second.took < .seconds(1.4), "the second call has what the first left of the budget, 0.2 s, not a budget of its own: \(second.took)")
        withExtendedLifetime(silent) {}
    }

    static func timedError(_ body: () async throws -> Void) async -> (error: AppStoreServerAPIError?, took: Duration) {
        let started = ContinuousClock.now
        let error = await AppStoreServerClientTests.error(body)
        return (error, ContinuousClock.now - started)
    }
}
