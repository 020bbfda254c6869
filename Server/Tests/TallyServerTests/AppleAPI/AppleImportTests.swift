import Crypto
import Foundation
import TallyCore
import TallyServer
import TallyTesting
import Testing

/// `tally import`'s work: a customer's history pulled from the App Store Server API (the
/// simulated store over HTTP) and replayed through the normal grant path, once, however often it
/// runs and whatever devices post afterwards.
@Suite(.timeLimit(.minutes(2))) struct AppleImportTests {
    static func importer(_ harness: Harness, _ url: URL, key: P256.Signing.PrivateKey) -> AppleImport {
        let apple = AppStoreServerClientTests.client(
            harness, AppStoreServerClientTests.configuration(key: key, [(.sandbox, url)]), tokenTime: { Harness.start })
        return AppleImport(apple: apple, storage: harness.storage)
    }

    /// Bought elsewhere, before Tally: no app account token.
    static func boughtElsewhere(_ harness: Harness, _ product: String) async throws -> SimulatedAppStore.SignedTransaction {
        guard case .success(let transaction) = try await harness.store.purchase(product, options: .init(outcome: .success)) else {
            throw TestFailure("purchase did not succeed")
        }
        return transaction
    }

    @Test(arguments: Backend.available)
    func aCustomerIsImportedOnceWhateverRunsAgainOrPostsLater(_ backend: Backend) async throws {
        let harness = try await Harness(backend)
        let first = try await Self.boughtElsewhere(harness, "com.tally.photo.credits.50")
        _ = try await Self.boughtElsewhere(harness, "com.tally.photo.credits.50")
        _ = try await Self.boughtElsewhere(harness, "com.tally.pro.monthly")
        try await harness.advance(by: .seconds(31 * 86_400))  // renewed once
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let importer = Self.importer(harness, url, key: key)
            let customers = [AppleImport.Customer(transactionID: first.transactionID, appUserID: "alice")]

            let dry = await importer.run(customers, dryRun: true)
            #expect(dry.transactions == 4, "two packs, the subscription and its renewal: \(dry)")
            #expect(dry.new == 4 && dry.known == 0 && dry.failures.isEmpty, "\(dry)")
            #expect(try await harness.storage.notifications.knownTransactionIDs([first.transactionID]).isEmpty, "a dry run writes nothing")

            let done = await importer.run(customers)
            #expect(done.new == 4 && done.failures.isEmpty, "\(done)")
            let alice = try #require(try await harness.storage.users.createUser(appUserID: "alice", tokenHash: "alice-device").0 as User?)
            let account = try await harness.storage.users.account(user: alice)
            let credits = account.balances.first { $0.currency == "credits" }?.available
            #expect(credits == 102, "the 2 sign-up credits and the two packs of 50")
            #expect(account.entitlements.first { $0.id == "pro" }?.active == true, "the renewed subscription")

            let again = await importer.run(customers)
            #expect(again.new == 0 && again.known == 4, "\(again)")
            let after = try await harness.storage.users.account(user: alice).balances.first { $0.currency == "credits" }?.available
            #expect(after == 102, "nothing granted twice")

            // Alice's phone posts its pack later: a replay.
            let posted = try await harness.storage.purchases.deliver(try await harness.verified(first.jws), jws: first.jws, presenter: alice, orderID: nil)
            #expect(posted.replayed)
            try await harness.checkInvariants()
        }
    }

    @Test func aCustomerNamedByTransactionAloneIsGrantedToTheUserItsTokenNames() async throws {
        let harness = try await Harness(.sqlite)
        let user = try await harness.user()
        let (bought, _) = try await harness.buy("com.tally.photo.credits.10", for: user)
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let report = await Self.importer(harness, url, key: key).run([AppleImport.Customer(transactionID: try #require(bought.payload.transactionID))])
            #expect(report.new == 1 && report.failures.isEmpty, "\(report)")
            #expect(try await harness.balance(user, "credits").available == 2 + 10)
        }
    }

    @Test func aCustomerAppleDoesNotKnowIsReportedAndTheRestGoOn() async throws {
        let harness = try await Harness(.sqlite)
        let bought = try await Self.boughtElsewhere(harness, "com.tally.photo.credits.10")
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let report = await Self.importer(harness, url, key: key).run([
                AppleImport.Customer(transactionID: "2000000000000001", appUserID: "ghost"),
                AppleImport.Customer(transactionID: bought.transactionID, appUserID: "bob"),
            ])
            #expect(report.failures.count == 1 && report.failures[0].hasPrefix("2000000000000001"), "\(report.failures)")
            #expect(report.new == 1)
        }
    }

    @Test(arguments: Backend.available)
    func aSubscriberInGraceKeepsAccessAndOneInBillingRetryShowsIt(_ backend: Backend) async throws {
        let harness = try await Harness(backend)
        try await harness.store.updateSettings { $0.billingGracePeriodEnabled = true }
        let bought = try await Self.boughtElsewhere(harness, "com.tally.pro.monthly")
        try await harness.advance(by: .seconds(8 * 86_400))  // the trial renews into a paid month
        try await harness.store.failNextRenewal(originalTransactionID: bought.transactionID)
        try await harness.advance(by: .seconds(31 * 86_400))  // the next renewal fails: grace
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let importer = Self.importer(harness, url, key: key)
            let customers = [AppleImport.Customer(transactionID: bought.transactionID, appUserID: "carol")]
            let report = await importer.run(customers)
            #expect(report.failures.isEmpty, "\(report)")
            let carol = try #require(try await harness.storage.users.createUser(appUserID: "carol", tokenHash: "carol-device").0 as User?)
            var account = try await harness.storage.users.account(user: carol)
            #expect(account.subscriptions.first?.status == .gracePeriod, "\(account.subscriptions)")
            #expect(account.entitlements.first { $0.id == "pro" }.map { $0.active && $0.inGracePeriod } == true, "grace keeps access")

            try await harness.advance(by: .seconds(17 * 86_400))  // grace over: billing retry
            _ = await importer.run(customers)
            account = try await harness.storage.users.account(user: carol)
            #expect(account.subscriptions.first?.status == .billingRetry, "\(account.subscriptions)")
            #expect(account.entitlements.first { $0.id == "pro" }?.active == false)
            try await harness.checkInvariants()
        }
    }

    @Test func aDryRunCountsWhatTheRunDoes() async throws {
        let harness = try await Harness(.sqlite)
        let first = try await Self.boughtElsewhere(harness, "com.tally.photo.credits.50")
        let second = try await Self.boughtElsewhere(harness, "com.tally.photo.credits.10")
        let subscription = try await Self.boughtElsewhere(harness, "com.tally.pro.monthly")
        try await harness.advance(by: .seconds(31 * 86_400))  // renewed once
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let importer = Self.importer(harness, url, key: key)
            // One customer named by each of their purchases, as an export of the old system lists them.
            let customers = [first, second, subscription].map { AppleImport.Customer(transactionID: $0.transactionID, appUserID: "dave") }
            var dry = await importer.run(customers, dryRun: true)
            let done = await importer.run(customers)
            #expect(done.new == 4 && done.failures.isEmpty, "two packs, the subscription and its renewal, each once: \(done)")
            dry.dryRun = false
            #expect(dry == done, "the dry run counts what the run does")

            let again = await importer.run(customers)
            #expect(again.new == 0 && again.known == done.transactions, "\(again)")
        }
    }

    @Test func theCustomersFileIsReadStrictly() throws {
        let customers = try AppleImport.customers("# moved from the old backend\n2000000000000001\nalice, 2000000000000002\n\n")
        #expect(customers == [.init(transactionID: "2000000000000001"), .init(transactionID: "2000000000000002", appUserID: "alice")])
        #expect(throws: TallyAPIError.self) { try AppleImport.customers("2000000000000001\nnot-an-id\n") }
        #expect(throws: TallyAPIError.self) { try AppleImport.customers(",2000000000000001") }
        #expect(throws: TallyAPIError.self) { try AppleImport.customers("a,b,2000000000000001") }
    }
}
