import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallySQL
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyServer

/// Events are written only while something reads them (decision 0042): a webhook endpoint, the
/// API's stream from its first request, the event log from its server's start. Until then a
/// change writes no event row, and what it changes is the same.
@Suite struct EventReadersTests {
    static func rows(_ database: any SQLDatabase, _ table: String) async throws -> Int64 {
        try await database.read { executor in
            try await executor.query("SELECT COUNT(*) AS n FROM \(identifier: table)")[0].int(SQLColumn("n"))
        }
    }

    static func readers(_ database: any SQLDatabase) async throws -> [String] {
        try await database.read { executor in
            try await executor.query("SELECT name FROM event_readers ORDER BY name").map { try $0.text(SQLColumn("name")) }
        }
    }

    static func buy(_ harness: Harness, _ user: User, _ product: String = "com.tally.photo.credits.10") async throws -> String {
        let (verified, jws) = try await harness.buy(product, for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        return try #require(verified.payload.transactionID)
    }

    @Test(arguments: Backend.available)
    func nothingReadsTheEventsSoNoneIsWritten(backend: Backend) async throws {
        let harness = try await Harness(backend, readsEvents: false)
        let user = try await harness.user()
        _ = try await Self.buy(harness, user)
        let spend = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 3, idempotencyKey: "s1"))
        #expect(try await Self.rows(harness.database, "events") == 0)
        #expect(try await Self.readers(harness.database).isEmpty)
        // The changes themselves are all there: sign-up's credits, the purchase's, the spend.
        #expect(spend.balance.available == 2 + 10 - 3)
        #expect(try await Self.rows(harness.database, "ledger_entries") == 3)
    }

    /// The API's stream keeps events from its first request on; what was written before then
    /// has no event, as an endpoint created later gets later events only.
    @Test(arguments: Backend.available)
    func theFirstRequestOfTheStreamKeepsEventsFromThenOn(backend: Backend) async throws {
        let harness = try await Harness(backend, readsEvents: false)
        let user = try await harness.user()
        let before = try await Self.buy(harness, user)
        let first = try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: nil, limit: 100)
        #expect(first.events.isEmpty)
        #expect(try await Self.readers(harness.database) == ["api"])
        let after = try await Self.buy(harness, user, "com.tally.photo.credits.50")
        let events = try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: nil, limit: 100).events
        #expect(events.map(\.type) == [.purchaseGranted])
        #expect(events.last?.data.transactionID == after && after != before)
        // Asking again changes nothing.
        try await harness.storage.webhooks.keepEvents(for: .api)
        #expect(try await Self.readers(harness.database) == ["api"])
    }

    /// An endpoint, enabled or not, keeps events (and is queued the ones it wants); once the
    /// last endpoint is gone and nothing else reads them, events stop again.
    @Test(arguments: Backend.available)
    func webhookEndpointsKeepEventsWhileThereAreAny(backend: Backend) async throws {
        let harness = try await Harness(backend, readsEvents: false)
        // Signed up before any endpoint: its grant has no event.
        let user = try await harness.user()
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await Self.buy(harness, user)
        #expect(try await Self.rows(harness.database, "events") == 1)
        #expect(try await Self.rows(harness.database, "webhook_deliveries") == 1)
        _ = try await harness.storage.webhooks.updateEndpoint(id: endpoint.id, change: WebhookEndpointChange(disabled: true))
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "s1"))
        #expect(try await Self.rows(harness.database, "events") == 2)
        try await harness.storage.webhooks.deleteEndpoint(id: endpoint.id)
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "s2"))
        #expect(try await Self.rows(harness.database, "events") == 2)
        #expect(try await Self.readers(harness.database).isEmpty)
    }

    /// Writes running while a reader is recorded: every write started after the record returned
    /// has its event, and on SQLite, where writes commit in order, the writes with an event are
    /// the last ones (an event is never missing between two that have theirs).
    @Test(arguments: Backend.available)
    func writesAroundTheFirstRequestAreCutOnceInOrder(backend: Backend) async throws {
        let harness = try await Harness(backend, readsEvents: false)
        var users: [User] = []
        for _ in 0..<12 { users.append(try await harness.user()) }
        let storage = harness.storage
        @Sendable func spend(_ user: User) async throws {
            _ = try await storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "s-\(user.id)"))
        }
        let early = Array(users[..<6])
        let late = Array(users[6...])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in early { group.addTask { try await spend(user) } }
            try await storage.webhooks.keepEvents(for: .api)
            for user in late { group.addTask { try await spend(user) } }
            try await group.waitForAll()
        }
        let events = try await storage.webhooks.events(for: .api, after: nil, type: .creditsSpent, userID: nil, limit: 100).events
        let withEvent = Set(events.compactMap(\.data.userID))
        #expect(withEvent.isSuperset(of: late.map(\.id)))
        #expect(events.count == Set(events.map(\.id)).count)
        guard backend == .sqlite else { return }
        // The spends in the order they committed: their ledger entries' ids.
        let order = try await harness.database.read { executor in
            try await executor.query("SELECT user_id FROM ledger_entries WHERE kind = \(LedgerEntryKind.spend) ORDER BY id").map {
                try $0.text(SQLColumn("user_id"))
            }
        }
        let flags = order.map { withEvent.contains($0) }
        #expect(flags == flags.sorted { !$0 && $1 }, "\(flags)")
    }

    /// A server started with an event log keeps events from its start, before the log's first
    /// look at them.
    @Test func aServerWithAnEventLogKeepsEventsFromItsStart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("tally.sqlite")
        var configuration = API.configuration(sqlitePath: path)
        configuration.eventLogPath = folder.path("events.jsonl")
        try await buildApplication(configuration: configuration).test(.router) { client in
            // Sign-up grants credits: its event is written.
            _ = try await client.newUser()
        }
        let reopened = try SQLiteDatabase(path: path)
        #expect(try await Self.readers(reopened) == ["event_log"])
        #expect(try await Self.rows(reopened, "events") == 1)
        await reopened.close()
    }

    /// What the admin API's first `GET /v1/admin/events` does: it records the API, and later
    /// changes have their events in the stream.
    @Test func theAPIsFirstRequestRecordsTheAPIAsAReader() async throws {
        let api = try await API(readsEvents: false)
        try await api.test { client in
            _ = try await client.newUser()
            let first = try await client.execute(uri: "/v1/admin/events", method: .get, headers: API.bearer(API.secret))
            #expect(first.status == .ok)
            #expect(try API.decode(TallyEventPage.self, first).events.isEmpty)
            let later = try await client.newUser()
            let page = try API.decode(TallyEventPage.self, try await client.execute(uri: "/v1/admin/events", method: .get, headers: API.bearer(API.secret)))
            #expect(page.events.map(\.data.userID) == [later.userID])
        }
        #expect(try await Self.readers(api.harness.database) == ["api"])
    }

    /// A reader forgotten through the admin API stops the events, once no endpoint is left
    /// either; an unknown reader, or one not recorded, is refused with its code.
    @Test func aReaderForgottenStopsTheEvents() async throws {
        let api = try await API(readsEvents: false)
        try await api.test { client in
            let admin = API.bearer(API.secret)
            _ = try await client.execute(uri: "/v1/admin/events", method: .get, headers: admin)
            let forgotten = try await client.execute(uri: "/v1/admin/events/readers/api", method: .delete, headers: admin)
            #expect(forgotten.status == .noContent)
            _ = try await client.newUser()
            #expect(try await Self.rows(api.harness.database, "events") == 0)
            let again = try await client.execute(uri: "/v1/admin/events/readers/api", method: .delete, headers: admin)
            #expect(again.status == .notFound && API.errorCode(again) == "not_found")
            let unknown = try await client.execute(uri: "/v1/admin/events/readers/nobody", method: .delete, headers: admin)
            #expect(unknown.status == .badRequest && API.errorCode(unknown) == "invalid_request")
        }
        #expect(try await Self.readers(api.harness.database).isEmpty)
    }

    /// With no reader, a write of many events (more than one statement's worth on PostgreSQL),
    /// all without a user, writes none; once a reader asks, the same write writes them all.
    @Test(arguments: Backend.available)
    func aWriteOfManyEventsWithoutAUserFollowsTheReaders(backend: Backend) async throws {
        let harness = try await Harness(backend, readsEvents: false)
        @Sendable func write() async throws {
            try await harness.storage.transactions.write { executor, _ in
                for index in 0..<450 {
                    var data = TallyEventData(userID: nil)
                    data.reference = "r\(index)"
                    try await executor.outbox.emit(.creditsAdjusted, data)
                }
            }
        }
        try await write()
        #expect(try await Self.rows(harness.database, "events") == 0)
        try await harness.storage.webhooks.keepEvents(for: .api)
        try await write()
        let events = try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: nil, limit: 1000).events
        #expect(events.map(\.data.reference) == (0..<450).map { "r\($0)" })
        #expect(events.allSatisfy { $0.data.userID == nil })
    }

    /// A database that kept events before readers were recorded goes on keeping them: its
    /// stream counts as read by the API since its first event. One without events starts
    /// with no reader.
    @Test(arguments: Backend.available)
    func aDatabaseWithEventsFromBeforeKeepsThem(backend: Backend) async throws {
        for hadEvents in [true, false] {
            let database = try await backend.makeDatabase()
            _ = try await database.write { executor in
                try await executor.execute("DROP TABLE event_readers")
                try await executor.execute("DELETE FROM schema_migrations WHERE name = '0008_event_readers'")
                if hadEvents {
                    try await executor.execute(
                        "INSERT INTO events (id, type, version, user_id, data, created_at) VALUES ('evt_old', 'credits.granted', 1, NULL, '{}', 1234)")
                }
            }
            try await database.migrate(Migrations.all)
            let since = try await database.read { executor in
                try await executor.query("SELECT name, since FROM event_readers").map { "\(try $0.text(SQLColumn("name"))) \(try $0.int(SQLColumn("since")))" }
            }
            #expect(since == (hadEvents ? ["api 1234"] : []))
            await database.close()
        }
    }
}
