import Foundation
import TallyCore
import TallySQL
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@testable import TallyServer

/// The storage backends the conformance suite runs on: SQLite always, PostgreSQL when
/// `TALLY_TEST_POSTGRES_URL` names a server (the test script starts one).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var available: [Backend] {
        ProcessInfo.processInfo.environment["TALLY_TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    /// A new, empty, migrated database of this kind.
    func makeDatabase() async throws -> any SQLDatabase {
        switch self {
        case .sqlite:
            let database = try SQLiteDatabase(path: try TemporaryFolder().path("tally.sqlite"))
            try await database.migrate(Migrations.all)
            return database
        case .postgres:
            return try await TestPostgres.makeDatabase()
        }
    }
}

/// A simulated App Store, a verifier that trusts its root, and storage on one backend.
final class Harness: @unchecked Sendable {
    static let start = ISO8601DateFormatter().date(from: "2026-03-01T00:00:00Z")!
    static let catalog: TallyCatalog = try! TallyCatalog.load(contentsOf: Repository.root.appendingPathComponent("Examples/tally.json"))
    static let storeCatalog: StoreKitConfiguration = try! StoreKitConfiguration.load(
        contentsOf: Repository.root.appendingPathComponent("Examples/Tally.storekit"))
    static let authority: TestCertificateAuthority = try! TestCertificateAuthority(profile: .init(issuedAt: start.addingTimeInterval(-86_400)))

    let clock = ManualDate(Harness.start)
    let store: SimulatedAppStore
    let verifier: SignedDataVerifier
    let database: any SQLDatabase
    let storage: SQLStorage
    let backend: Backend

    /// - Parameter readsEvents: whether the API's stream asks for events first, so that every
    ///   event is written (decision 0042); false for the tests of what is written when nothing reads them.
    /// - Parameter catalog: what the server sells; the store sells `Examples/Tally.storekit` whatever it is.
    convenience init(_ backend: Backend, readsEvents: Bool = true, catalog: TallyCatalog = Harness.catalog) async throws {
        try await self.init(backend, database: try await backend.makeDatabase(), readsEvents: readsEvents, catalog: catalog)
    }

    /// A harness on a database made elsewhere (already migrated).
    init(_ backend: Backend, database: any SQLDatabase, readsEvents: Bool = true, catalog: TallyCatalog = Harness.catalog) async throws {
        self.backend = backend
        store = try SimulatedAppStore(
            configuration: Self.storeConfiguration(firstTransactionNumber: firstTransactionNumber), authority: Self.authority,
            time: .manual(start: Self.start))
        verifier = SignedDataVerifier(
            .init(
                bundleID: .equals("com.tally.example"), appAppleID: .equals(6_450_000_001), environments: [.sandbox, .production],
                rootCertificates: [Self.authority.root]),
            now: { Harness.start })
        self.database = database
        let clock = self.clock
        storage = SQLStorage(database: database, catalog: catalog, now: { clock.now })
        if readsEvents { try await storage.webhooks.keepEvents(for: .api) }
    }

    /// The App Store's settings, numbering transactions from `first`.
    static func storeConfiguration(firstTransactionNumber first: Int64) -> SimulatedAppStore.Configuration {
        var configuration = SimulatedAppStore.Configuration(catalog: Self.storeCatalog, bundleID: "com.tally.example", appAppleID: 6_450_000_001)
        configuration.firstTransactionNumber = first
        return configuration
    }

    /// Where the harness's store numbers its transactions from (random, so that tests on one
    /// server's database never meet).
    let firstTransactionNumber = 2_000_000_500_000_000 + Int64.random(in: 0..<1_000_000) * 100

    /// Another Apple account buying from the same App Store, at the store's time now: the
    /// harness's store is one account, whose subscriptions of one group are one subscription.
    /// Customer `number` numbers its transactions `number` × 50,000 after the harness's store; its
    /// clock stays where it starts (``advance(by:)`` moves the harness's store only).
    func anotherCustomer(number: Int64) async throws -> SimulatedAppStore {
        try SimulatedAppStore(
            configuration: Self.storeConfiguration(firstTransactionNumber: firstTransactionNumber + number * 50_000),
            authority: Self.authority, time: .manual(start: await store.now))
    }

    /// Moves the store and the server's clock forward together.
    func advance(by duration: Duration) async throws {
        try await store.advance(by: duration)
        clock.set(await store.now)
    }

    func user(appUserID: String? = nil) async throws -> User {
        try await storage.users.createUser(appUserID: appUserID, tokenHash: UUID().uuidString).0
    }

    /// A verified transaction and its JWS.
    typealias Bought = (Verified<TransactionPayload>, String)

    /// Buys from the simulated store and verifies, as a device would before posting.
    /// - Parameter customer: the Apple account that buys; the harness's store by default.
    func buy(_ product: String, for user: User?, quantity: Int = 1, from customer: SimulatedAppStore? = nil) async throws -> Bought {
        let options = SimulatedAppStore.PurchaseOptions(appAccountToken: user?.appAccountToken, quantity: quantity, outcome: .success)
        guard case .success(let transaction) = try await (customer ?? store).purchase(product, options: options) else {
            throw TestFailure("purchase did not succeed")
        }
        return (try await verifier.verifyTransaction(transaction.jws).get(), transaction.jws)
    }

    func verified(_ jws: String) async throws -> Verified<TransactionPayload> {
        try await verifier.verifyTransaction(jws).get()
    }

    /// The notifications the store made (it delivers nowhere), verified with their signed data.
    func notifications() async throws -> [(VerifiedNotification, String)] {
        var result: [(VerifiedNotification, String)] = []
        for sent in await store.notifications {
            result.append((try await verifier.verifyNotification(sent.signedPayload, includingSignedData: true).get(), sent.signedPayload))
        }
        return result
    }

    func balance(_ user: User, _ currency: String) async throws -> Balance {
        try #require(try await storage.users.account(user: user).balances.first { $0.currency == currency })
    }

    /// Balance = sum of ledger entries (and lots = available + held), for every user and
    /// currency: the invariant checked after every test step, by the audit `tally check` runs.
    func checkInvariants() async throws {
        let audit = try await DatabaseAudit.run(on: database)
        #expect(audit.isConsistent, "\(audit.mismatches)")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` `count` times at once and collects every outcome, failures included.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable () async throws -> T) async -> [Result<T, any Error>] {
    await withTaskGroup(of: Result<T, any Error>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do { return .success(try await body()) } catch { return .failure(error) }
            }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
}

/// The errors among outcomes, for a failing expectation's message.
func failures<T>(_ outcomes: [Result<T, any Error>]) -> [String] {
    outcomes.compactMap { outcome in
        guard case .failure(let error) = outcome else { return nil }
        return String(describing: error)
    }
}

/// Distinct numbers for tasks running at once.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}
