import Crypto
import Foundation
import TallyCore
import TallyServer
import TallyTesting
import Testing

/// Answers to Apple's consumption requests, through the queue and Send Consumption Information on
/// the simulated store over HTTP: once each, with what the ledger knew, within 12 hours, across a
/// crash and several servers.
@Suite(.timeLimit(.minutes(2))) struct ConsumptionAnswerTests {
    /// A customer bought 50 credits and spent 20 of them, then asked Apple for a refund.
    static func requested(_ harness: Harness) async throws -> (user: User, transactionID: String) {
        let user = try await harness.user()
        let (credits, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        _ = try await harness.storage.purchases.deliver(credits, jws: jws, presenter: user, orderID: nil)
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 22, idempotencyKey: "photos"))
        let id = try #require(credits.payload.transactionID)
        let before = await harness.store.notifications.count
        try await harness.store.requestConsumptionInformation(transactionID: id)
        for (verified, signed) in try await harness.notifications().dropFirst(before) {
            _ = try await harness.storage.notifications.apply(verified, jws: signed)
        }
        return (user, id)
    }

    static func answerer(_ harness: Harness, _ url: URL, key: P256.Signing.PrivateKey, attempts: Int = 3) -> ConsumptionAnswerer {
        var configuration = AppStoreServerClientTests.configuration(key: key, [(.sandbox, url)])
        configuration.maximumAttempts = attempts
        let apple = AppStoreServerClientTests.client(harness, configuration, tokenTime: { Harness.start })
        let clock = harness.clock
        return ConsumptionAnswerer(
            apple: apple, notifications: harness.storage.notifications, policy: ConsumptionAnswerPolicy(refundPreference: .preferDecline), now: { clock.now })
    }

    @Test(arguments: Backend.available)
    func aRequestIsAnsweredOnceWithWhatTheLedgerKnew(_ backend: Backend) async throws {
        let harness = try await Harness(backend)
        let (_, id) = try await Self.requested(harness)
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let answerer = Self.answerer(harness, url, key: key)
            #expect(try await answerer.run().sent == 1)
            #expect(try await answerer.run().sent == 0, "answered once")
            let sent = await harness.store.consumptionInformation(transactionID: id)
            #expect(sent.count == 1)
            let body = try AppStoreJSON.decoder().decode(ConsumptionRequest.self, from: try #require(sent.first))
            #expect(body.customerConsented == true)
            #expect(body.consumptionStatus == .init(rawValue: 2), "partially consumed: 22 of the 50 credits were spent")
            #expect(body.deliveryStatus == .init(rawValue: 0), "delivered")
            #expect(body.refundPreference == .preferDecline)
            #expect(body.accountTenure == .init(rawValue: 1), "a customer of less than 3 days")
            #expect(body.lifetimeDollarsPurchased == .oneCentToFortyNineDollarsAndNinetyNineCents, "one pack for $7.99")
            #expect(body.lifetimeDollarsRefunded == .zeroDollars)
            #expect(body.playTime == .undeclared, "the app sells credits, not time")
        }
    }

    @Test(arguments: Backend.available)
    func aServerThatDiedAfterClaimingIsCoveredOnceItsClaimLapsesAndTwoServersAnswerOnce(_ backend: Backend) async throws {
        let harness = try await Harness(backend)
        var ids: [String] = []
        for _ in 0..<3 { ids.append(try await Self.requested(harness).transactionID) }
        let requested = ids
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            // A server claims the first request and is killed before it sends anything.
            let claimed = try await harness.storage.notifications.claimConsumptionRequests(
                since: harness.clock.now.addingTimeInterval(-ConsumptionAnswerer.window), lease: 300, limit: 1)
            #expect(claimed.count == 1)
            // Two servers answer at once: the claimed one is left, the others are sent once.
            async let first = Self.answerer(harness, url, key: key).run()
            async let second = Self.answerer(harness, url, key: key).run()
            let reports = try await [first, second]
            #expect(reports.map(\.sent).reduce(0, +) == 2)
            // Five minutes on the dead server's claim lapses.
            try await harness.advance(by: .seconds(301))
            #expect(try await Self.answerer(harness, url, key: key).run().sent == 1)
            for id in requested {
                #expect(await harness.store.consumptionInformation(transactionID: id).count == 1, "each request answered once")
            }
        }
    }

    @Test func aRequestAppleDoesNotTakeIsTriedAgainUntilTwelveHoursPass() async throws {
        let harness = try await Harness(.sqlite)
        let (_, id) = try await Self.requested(harness)
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let answerer = Self.answerer(harness, url, key: key, attempts: 1)
            await harness.store.failServerAPI([ServerAPIFault(status: 503)])
            let down = try await answerer.run()
            #expect(down.deferred == 1)
            #expect(down.sent == 0)
            try await harness.advance(by: .seconds(13 * 3600))
            await harness.store.failServerAPI([ServerAPIFault(status: 503)])
            let late = try await answerer.run()
            #expect(late.expired == 1, "past Apple's 12 hours it is closed unanswered")
            #expect(try await answerer.run() == ConsumptionAnswerer.Report())
            #expect(await harness.store.consumptionInformation(transactionID: id).isEmpty)
        }
    }

    @Test func anAppSellingTimeTellsHowMuchWasUsed() async throws {
        let harness = try await Harness(.sqlite)
        let user = try await harness.user()
        let (hours, jws) = try await harness.buy("com.tally.echo.3hours", for: user)
        _ = try await harness.storage.purchases.deliver(hours, jws: jws, presenter: user, orderID: nil)
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "seconds", amount: 4000, idempotencyKey: "recording"))
        let id = try #require(hours.payload.transactionID)
        let before = await harness.store.notifications.count
        try await harness.store.requestConsumptionInformation(transactionID: id)
        for (verified, signed) in try await harness.notifications().dropFirst(before) {
            _ = try await harness.storage.notifications.apply(verified, jws: signed)
        }
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            #expect(try await Self.answerer(harness, url, key: key).run().sent == 1)
            let body = try AppStoreJSON.decoder().decode(
                ConsumptionRequest.self, from: try #require(await harness.store.consumptionInformation(transactionID: id).first))
            #expect(body.playTime == .oneToSixHours, "4000 seconds of recording used")
            #expect(body.consumptionStatus == .init(rawValue: 2))
        }
    }
}
