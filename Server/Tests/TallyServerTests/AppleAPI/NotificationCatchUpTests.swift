import Crypto
import Foundation
import TallyCore
import TallyServer
import TallyTesting
import TallyVerify
import Testing

/// Catching up with the notifications a server missed, from the App Store Server API's
/// notification history (the simulated store over HTTP): the end state after a downtime equals
/// the one with every notification delivered, and a catch-up cut short loses nothing and applies
/// nothing twice.
@Suite(.timeLimit(.minutes(2))) struct NotificationCatchUpTests {
    /// What a customer would notice of an account: balances and entitlements.
    static func state(_ account: AccountResponse) -> [String] {
        account.balances.filter { $0.available != 0 || $0.debt != 0 }.map { "\($0.currency): \($0.available) debt \($0.debt)" }.sorted()
            + account.entitlements.map { "\($0.id) active \($0.active) until \($0.expiresAt.map { "\($0.timeIntervalSince1970)" } ?? "-")" }.sorted()
    }

    /// A customer buys 50 credits and a monthly subscription; then, while the server is down
    /// or not, the credits are refunded, the subscription renews, renewal is turned off, and it
    /// expires. Returns the account as the server sees it at the end.
    static func journey(downtime: Bool) async throws -> [String] {
        let harness = try await Harness(.sqlite)
        let key = P256.Signing.PrivateKey()
        let result = Result()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let apple = AppStoreServerClientTests.client(
                harness, AppStoreServerClientTests.configuration(key: key, [(.sandbox, url)]), tokenTime: { Harness.start })
            let clock = harness.clock
            let catchUp = NotificationCatchUp(apple: apple, notifications: harness.storage.notifications, environments: [.sandbox], now: { clock.now })
            let user = try await harness.user()
            let (credits, creditsJWS) = try await harness.buy("com.tally.photo.credits.50", for: user)
            _ = try await harness.storage.purchases.deliver(credits, jws: creditsJWS, presenter: user, orderID: nil)
            let (pro, proJWS) = try await harness.buy("com.tally.pro.monthly", for: user)
            _ = try await harness.storage.purchases.deliver(pro, jws: proJWS, presenter: user, orderID: nil)

            // Apple's deliveries, when the server is up to take them.
            var delivered = 0
            func deliver() async throws {
                let all = try await harness.notifications()
                defer { delivered = all.count }
                guard !downtime else { return }
                for (verified, jws) in all.dropFirst(delivered) { _ = try await harness.storage.notifications.apply(verified, jws: jws) }
            }
            try await deliver()
            // The routine catch-up while the server ran: it sets the mark the next one starts from.
            if downtime { try await catchUp.run() }

            try await harness.store.refund(transactionID: try #require(credits.payload.transactionID))
            try await deliver()
            try await harness.advance(by: .seconds(31 * 86_400))
            try await deliver()
            try await harness.store.setAutoRenew(originalTransactionID: try #require(pro.payload.originalTransactionID), enabled: false)
            try await deliver()
            try await harness.advance(by: .seconds(31 * 86_400))
            try await deliver()
            // The server comes back a minute later and catches up.
            try await harness.advance(by: .seconds(60))
            if downtime {
                let report = try await catchUp.run()
                #expect(report.applied >= 4, "the refund, the renewal, the renewal turned off, the expiry: \(report)")
            }
            result.set(Self.state(try await harness.storage.users.account(user: user)))
        }
        return result.value
    }

    final class Result: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        var value: [String] { lock.withLock { stored } }
        func set(_ value: [String]) { lock.withLock { stored = value } }
    }

    @Test func afterADowntimeTheCatchUpLeavesWhatEveryDeliveryWouldHave() async throws {
        let delivered = try await Self.journey(downtime: false)
        let caughtUp = try await Self.journey(downtime: true)
        #expect(!delivered.isEmpty)
        #expect(delivered.contains { $0.hasPrefix("pro active false") }, "the subscription expired: \(delivered)")
        #expect(!delivered.contains { $0.hasPrefix("credits: 52") }, "the refund took the 50 credits back: \(delivered)")
        #expect(caughtUp == delivered)
    }

    /// AsyncHTTPClient, with no answer to the requests whose numbers are given.
    final class BrokenTransport: AppleHTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private let real = AsyncHTTPClientTransport()
        private var count = 0
        private var broken: Set<Int> = []
        func breakRequest(_ number: Int) { _ = lock.withLock { broken.insert(number) } }
        var requests: Int { lock.withLock { count } }
        func send(_ request: AppleHTTPRequest) async throws -> AppleHTTPResponse {
            let fails = lock.withLock { () -> Bool in
                count += 1
                return broken.contains(count)
            }
            if fails { throw URLError(.networkConnectionLost) }
            return try await real.send(request)
        }
    }

    @Test(arguments: Backend.available)
    func aCatchUpCutShortLosesNothingAndAppliesNothingTwice(_ backend: Backend) async throws {
        let harness = try await Harness(backend)
        let key = P256.Signing.PrivateKey()
        let user = try await harness.user()
        // 25 refunds: two pages of history (Apple's pages hold 20).
        var bought: [String] = []
        for _ in 0..<25 {
            let (credits, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
            _ = try await harness.storage.purchases.deliver(credits, jws: jws, presenter: user, orderID: nil)
            bought.append(try #require(credits.payload.transactionID))
        }
        let ids = bought
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            var configuration = AppStoreServerClientTests.configuration(key: key, [(.sandbox, url)])
            configuration.maximumAttempts = 1
            let transport = BrokenTransport()
            let apple = AppStoreServerClientTests.client(harness, configuration, transport: transport, tokenTime: { Harness.start })
            let clock = harness.clock
            let catchUp = NotificationCatchUp(apple: apple, notifications: harness.storage.notifications, environments: [.sandbox], now: { clock.now })
            // An hour after the purchases the routine catch-up runs; the next one starts 10 minutes before it.
            try await harness.advance(by: .seconds(3600))
            try await catchUp.run()
            let mark = try #require(try await harness.storage.notifications.catchUpMark(environment: .sandbox))

            for id in ids { try await harness.store.refund(transactionID: id) }
            try await harness.advance(by: .seconds(60))
            // The first page is read and applied, then the connection drops on the second.
            transport.breakRequest(transport.requests + 2)
            await #expect(throws: AppStoreServerAPIError.self) { try await catchUp.run() }
            #expect(try await harness.storage.notifications.catchUpMark(environment: .sandbox) == mark, "a catch-up cut short leaves the mark")
            #expect(try await harness.balance(user, "credits").available == 2 + 50, "the first page's 20 refunds are taken back, not the rest")

            let report = try await catchUp.run()
            #expect(report.applied == 5, "\(report)")
            #expect(report.duplicates == 20, "\(report)")
            #expect(report.pages == 2)
            #expect(try await harness.balance(user, "credits").available == 2, "every refund taken back once: the sign-up credits are left")
            #expect(try await harness.storage.notifications.catchUpMark(environment: .sandbox)! > mark)
            try await harness.checkInvariants()
        }
    }

    /// `tally serve` with a key: the catch-up runs at start, and shutting down does not wait out
    /// its 10-minute pause (the suite's time limit would fail it).
    @Test func theServerCatchesUpAtStartAndStopsWithoutWaitingItsInterval() async throws {
        let api = try await API()
        let harness = api.harness
        let user = try await harness.user()
        let (credits, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        _ = try await harness.storage.purchases.deliver(credits, jws: jws, presenter: user, orderID: nil)
        try await harness.store.refund(transactionID: try #require(credits.payload.transactionID))
        // The server starts half a minute later (Apple's history ends before the moment asked).
        try await harness.advance(by: .seconds(30))
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            var configuration = AppStoreServerClientTests.server(api, key: key, url: url)
            configuration.notificationCatchUpInterval = .seconds(600)
            try await buildApplication(configuration: configuration).test(.live) { _ in
                let deadline = Date().addingTimeInterval(20)
                while try await harness.balance(user, "credits").available != 2, Date() < deadline {
                    try await Task.sleep(nanoseconds: 20_000_000)
                }
                #expect(try await harness.balance(user, "credits").available == 2, "the refund missed while down was applied at start")
            }
        }
    }

    @Test(arguments: Backend.available)
    func theMarkOnlyMovesForward(_ backend: Backend) async throws {
        let harness = try await Harness(backend)
        #expect(try await harness.storage.notifications.catchUpMark(environment: .production) == nil)
        let later = Harness.start.addingTimeInterval(3600)
        try await harness.storage.notifications.moveCatchUpMark(environment: .production, to: later)
        try await harness.storage.notifications.moveCatchUpMark(environment: .production, to: Harness.start)
        #expect(try await harness.storage.notifications.catchUpMark(environment: .production) == later, "two servers catching up at once leave the later mark")
        #expect(try await harness.storage.notifications.catchUpMark(environment: .sandbox) == nil, "each environment has its own")
    }
}
