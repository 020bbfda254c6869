import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import TallyCore
import TallySQL
import TallyTestSupport
import Testing

@testable import TallyServer

/// A receiver in memory: what it was sent, and what it answers.
final class ScriptedReceiver: WebhookTransport, @unchecked Sendable {
    struct Request {
        var url: String
        var headers: [String: String]
        var body: [UInt8]
        var event: TallyEvent { try! TallyAPI.decoder().decode(TallyEvent.self, from: Data(body)) }
    }

    private let lock = NIOLock()
    private var sent: [Request] = []
    private let answer: @Sendable (Request, Int) -> WebhookResponse

    /// - Parameter answer: given a request and how many came before it for its id.
    init(_ answer: @escaping @Sendable (Request, Int) -> WebhookResponse = { _, _ in WebhookResponse(statusCode: 200, excerpt: "ok") }) {
        self.answer = answer
    }

    var requests: [Request] { lock.withLock { sent } }

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async -> WebhookResponse {
        let request = Request(url: url, headers: Dictionary(headers, uniquingKeysWith: { $1 }), body: body)
        let before = lock.withLock {
            let count = sent.count { $0.headers["webhook-id"] == request.headers["webhook-id"] }
            sent.append(request)
            return count
        }
        return answer(request, before)
    }
}

/// A receiver that answers 200 at once, but holds the requests `hangs` picks until `open()`:
/// a receiver slow to answer, without waiting for a timeout on the wall clock.
final class GatedReceiver: WebhookTransport, @unchecked Sendable {
    private let lock = NIOLock()
    private var sent: [ScriptedReceiver.Request] = []
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    private let hangs: @Sendable (ScriptedReceiver.Request, Int) -> Bool

    /// - Parameter hangs: given a request and how many came before it, whether it waits for `open()`.
    init(hangs: @escaping @Sendable (ScriptedReceiver.Request, Int) -> Bool) {
        self.hangs = hangs
    }

    var requests: [ScriptedReceiver.Request] { lock.withLock { sent } }

    func open() {
        let resumed = lock.withLock {
            isOpen = true
            defer { waiting = [] }
            return waiting
        }
        for continuation in resumed { continuation.resume() }
    }

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async -> WebhookResponse {
        let request = ScriptedReceiver.Request(url: url, headers: Dictionary(headers, uniquingKeysWith: { $1 }), body: body)
        let hold = lock.withLock {
            defer { sent.append(request) }
            return hangs(request, sent.count) && !isOpen
        }
        if hold {
            await withCheckedContinuation { continuation in
                let resumeNow = lock.withLock {
                    if isOpen { return true }
                    waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return WebhookResponse(statusCode: 200, excerpt: "ok")
    }
}

@Suite struct WebhookDeliveryTests {
    /// Whether `header` carries a `v1` signature of the request made with `secret`.
    static func verifies(_ request: ScriptedReceiver.Request, secret: String) -> Bool {
        guard let key = Base64.decode(secret.dropFirst(6).utf8, alphabet: .standard),
            let id = request.headers["webhook-id"], let timestamp = request.headers["webhook-timestamp"],
            let header = request.headers["webhook-signature"]
        else { return false }
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(id).\(timestamp).".utf8) + request.body, using: SymmetricKey(data: key))
        return header.split(separator: " ").contains { $0 == "v1," + Data(mac).base64EncodedString() }
    }

    static func dispatcher(_ harness: Harness, _ receiver: some WebhookTransport, delays: [TimeInterval] = [5, 300]) -> WebhookDispatcher {
        let clock = harness.clock
        var dispatcher = WebhookDispatcher(
            storage: harness.storage.webhooks, transport: receiver, policy: WebhookRetryPolicy(delays: delays), timeout: 5, now: { clock.now })
        dispatcher.random = { 0.5 }  // no jitter: the pauses are the schedule's
        return dispatcher
    }

    /// Runs rounds until nothing is due now.
    @discardableResult
    static func drain(_ dispatcher: WebhookDispatcher) async throws -> WebhookDispatcher.Report {
        var total = WebhookDispatcher.Report()
        while true {
            let report = try await dispatcher.runOnce()
            if report == WebhookDispatcher.Report() { return total }
            total.delivered += report.delivered
            total.failedAttempts += report.failedAttempts
        }
    }

    static func statuses(_ harness: Harness, _ endpointID: String) async throws -> [String: String] {
        let page = try await harness.storage.webhooks.deliveries(endpointID: endpointID, status: nil, limit: 100, cursor: nil)
        return Dictionary(uniqueKeysWithValues: page.deliveries.map { ($0.eventID, $0.status) })
    }

    /// The database queues an event's deliveries as it is inserted; an instance of the build
    /// before, still running during a rolling upgrade on PostgreSQL (SQLite has one instance),
    /// inserts them itself in the same statement, and is neither refused nor given a second delivery.
    @Test(arguments: Backend.available.filter { $0 == .postgres })
    func anEventInsertedAsTheBuildBeforeDidIsQueuedOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [.creditsSpent], secret: .generate())
        _ = try await harness.database.write { executor in
            try await executor.execute(
                """
                WITH e AS (
                    INSERT INTO events (id, type, version, user_id, data, created_at) VALUES ('evt_before', 'credits.spent', 1, NULL, '{}', 5)
                    RETURNING seq)
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at)
                SELECT w.id, e.seq, 'pending', 5, 5 FROM e, webhook_endpoints w
                """)
        }
        // An event of a type the endpoint does not want is not queued for it.
        _ = try await harness.database.write { executor in
            try await executor.execute(
                "INSERT INTO events (id, type, version, user_id, data, created_at) VALUES ('evt_other', 'credits.granted', 1, NULL, '{}', 6)")
        }
        let queued = try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 10, cursor: nil).deliveries
        #expect(queued.map(\.eventID) == ["evt_before"])
    }

    @Test(arguments: Backend.available)
    func aSlowAnswerDoesNotHoldUpTheOtherDeliveriesOrTheirRecords(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        for _ in 0..<5 { _ = try await harness.user() }
        let receiver = GatedReceiver { _, before in before == 0 }  // the first request answers late
        let dispatcher = Self.dispatcher(harness, receiver)
        let run = Task { try await Self.drain(dispatcher) }
        // The other four are received and recorded delivered while the first still waits: a
        // worker killed now sends only that one again.
        try await eventually("the other four recorded delivered") {
            try await Self.statuses(harness, endpoint.id).values.filter { $0 == "delivered" }.count == 4
        }
        let slowID = try #require(receiver.requests.first?.headers["webhook-id"])
        let slow = try #require(
            try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: "pending", limit: 10, cursor: nil).deliveries.first)
        #expect(slow.eventID == slowID && slow.attempts == 0)
        #expect(receiver.requests.count == 5)
        receiver.open()
        #expect(try await run.value.delivered == 5)
        #expect(Set(try await Self.statuses(harness, endpoint.id).values) == ["delivered"])
        #expect(receiver.requests.count == 5)
    }

    @Test(arguments: Backend.available)
    func aSlowEndpointTakesNoMoreThanItsShareOfTheRequestsInFlight(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let slow = try await harness.storage.webhooks.createEndpoint(url: "https://slow.example.com/", description: "", eventTypes: [], secret: .generate())
        let fast = try await harness.storage.webhooks.createEndpoint(url: "https://fast.example.com/", description: "", eventTypes: [], secret: .generate())
        for _ in 0..<6 { _ = try await harness.user() }
        let receiver = GatedReceiver { request, _ in request.url == "https://slow.example.com/" }
        var dispatcher = Self.dispatcher(harness, receiver)
        dispatcher.concurrency = 4
        dispatcher.perEndpoint = 2
        let worker = dispatcher
        let run = Task { try await Self.drain(worker) }
        try await eventually("the fast endpoint's six delivered") {
            try await Self.statuses(harness, fast.id).values.filter { $0 == "delivered" }.count == 6
        }
        // Two requests wait at the slow endpoint; its other four deliveries were not taken.
        #expect(receiver.requests.filter { $0.url == "https://slow.example.com/" }.count == 2)
        #expect(try await Self.statuses(harness, slow.id).values.filter { $0 == "delivered" }.isEmpty)
        receiver.open()
        #expect(try await run.value.delivered == 12)
        #expect(Set(try await Self.statuses(harness, slow.id).values) == ["delivered"])
        let ids = receiver.requests.compactMap { $0.headers["webhook-id"] }
        #expect(ids.count == 12 && Set(ids).count == 6)
    }

    @Test(arguments: Backend.available)
    func aStoppedWorkerFinishesAndRecordsWhatIsInFlightAndClaimsNoMore(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        for _ in 0..<3 { _ = try await harness.user() }
        let receiver = GatedReceiver { _, _ in true }
        var dispatcher = Self.dispatcher(harness, receiver)
        dispatcher.concurrency = 2
        let worker = dispatcher
        let stopping = NIOLockedValueBox(false)
        let run = Task { try await worker.run(pause: {}, stop: { stopping.withLockedValue { $0 } }) }
        await eventually("two requests in flight") { receiver.requests.count == 2 }
        stopping.withLockedValue { $0 = true }
        receiver.open()
        #expect(try await run.value.delivered == 2)
        #expect(receiver.requests.count == 2)
        let statuses = try await Self.statuses(harness, endpoint.id).values.sorted()
        #expect(statuses == ["delivered", "delivered", "pending"])
    }

    @Test func theSignatureMatchesTheSpecificationsKnownAnswer() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8), secrets: [secret])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func secretsAreWhsecAndTheBase64Of24To64Bytes() throws {
        let generated = WebhookSecret.generate()
        #expect(generated.text.hasPrefix("whsec_"))
        #expect(Base64.decode(generated.text.dropFirst(6).utf8, alphabet: .standard)?.count == 32)
        #expect(WebhookSecret("whsec_" + Data(repeating: 7, count: 24).base64EncodedString()) != nil)
        #expect(WebhookSecret("whsec_" + Data(repeating: 7, count: 64).base64EncodedString()) != nil)
        #expect(WebhookSecret("whsec_" + Data(repeating: 7, count: 23).base64EncodedString()) == nil)
        #expect(WebhookSecret("whsec_" + Data(repeating: 7, count: 65).base64EncodedString()) == nil)
        #expect(WebhookSecret(Data(repeating: 7, count: 32).base64EncodedString()) == nil)
        #expect(WebhookSecret("whsec_not base64!") == nil)
        #expect("\(generated)" == "whsec_…")
    }

    @Test(arguments: Backend.available)
    func anEventIsPostedSignedAndItsAttemptRecorded(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/tally", description: "crm", eventTypes: [], secret: .generate())
        let user = try await harness.user()
        let receiver = ScriptedReceiver()
        let report = try await Self.drain(Self.dispatcher(harness, receiver))
        #expect(report.delivered == 1)
        let request = try #require(receiver.requests.first)
        #expect(request.url == "https://hooks.example.com/tally")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.event.type == .creditsGranted && request.event.data.userID == user.id)
        #expect(request.headers["webhook-id"] == request.event.id)
        #expect(request.headers["webhook-timestamp"] == String(Int64(harness.clock.now.timeIntervalSince1970)))
        #expect(Self.verifies(request, secret: try #require(endpoint.secret)))
        #expect(!Self.verifies(request, secret: WebhookSecret.generate().text))
        // The bytes posted are the event as GET /v1/admin/events lists it.
        let listed = try #require(try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: nil, limit: 1).events.first)
        #expect(request.body == Array(try TallyAPI.encoder().encode(listed)))
        let page = try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 10, cursor: nil)
        #expect(page.deliveries.map(\.status) == ["delivered"])
        let attempts = try await harness.storage.webhooks.attempts(endpointID: endpoint.id, eventID: request.event.id)
        #expect(attempts.count == 1 && attempts[0].statusCode == 200 && attempts[0].responseExcerpt == "ok")
        // Delivered: nothing more is sent.
        #expect(try await Self.drain(Self.dispatcher(harness, receiver)) == WebhookDispatcher.Report())
    }

    @Test(arguments: Backend.available)
    func aFailingReceiverIsRetriedOnTheScheduleUntilItFails(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(url: "http://127.0.0.1:9/hook", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        let receiver = ScriptedReceiver { _, before in
            before == 0 ? WebhookResponse(statusCode: 500, excerpt: "boom") : WebhookResponse(statusCode: nil, error: "timed out")
        }
        let dispatcher = Self.dispatcher(harness, receiver, delays: [5, 300])
        #expect(try await Self.drain(dispatcher).failedAttempts == 1)
        var delivery = try #require(try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 1, cursor: nil).deliveries.first)
        #expect(delivery.status == "pending" && delivery.attempts == 1 && delivery.lastStatusCode == 500)
        #expect(delivery.nextAttemptAt == harness.clock.now.addingTimeInterval(5))
        try await harness.advance(by: .seconds(4))
        #expect(try await Self.drain(dispatcher) == WebhookDispatcher.Report())
        try await harness.advance(by: .seconds(1))
        #expect(try await Self.drain(dispatcher).failedAttempts == 1)
        try await harness.advance(by: .seconds(300))
        #expect(try await Self.drain(dispatcher).failedAttempts == 1)
        delivery = try #require(try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 1, cursor: nil).deliveries.first)
        #expect(delivery.status == "failed" && delivery.attempts == 3)
        try await harness.advance(by: .seconds(86_400))
        #expect(try await Self.drain(dispatcher) == WebhookDispatcher.Report())
        let attempts = try await harness.storage.webhooks.attempts(endpointID: endpoint.id, eventID: delivery.eventID)
        #expect(attempts.map(\.statusCode) == [500, nil, nil])
        #expect(attempts.map(\.error) == [nil, "timed out", "timed out"])
        #expect(attempts[0].responseExcerpt == "boom")
        #expect(Set(receiver.requests.map { $0.headers["webhook-id"] }).count == 1)
    }

    @Test func theScheduleIsTheSpecificationsWithJitterAndHonoursRetryAfter() {
        let policy = WebhookRetryPolicy.standard
        #expect(policy.delays.count == 9)  // ten attempts
        #expect(policy.delay(afterAttempts: 1, retryAfter: nil, random: 0.5) == 5)
        #expect(policy.delay(afterAttempts: 1, retryAfter: nil, random: 0) == 4.5)
        #expect(policy.delay(afterAttempts: 1, retryAfter: nil, random: 0.999_999)! > 5.49)
        #expect(policy.delay(afterAttempts: 9, retryAfter: nil, random: 0.5) == 86_400)
        #expect(policy.delay(afterAttempts: 10, retryAfter: nil, random: 0.5) == nil)
        #expect(policy.delay(afterAttempts: 1, retryAfter: 120, random: 0.5) == 120)
        #expect(policy.delay(afterAttempts: 1, retryAfter: 10_000_000, random: 0.5) == 86_400)
    }

    @Test(arguments: Backend.available)
    func a410DisablesTheEndpointAndLaterEventsAreNotQueuedForIt(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(url: "https://gone.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        let receiver = ScriptedReceiver { _, _ in WebhookResponse(statusCode: 410) }
        _ = try await Self.drain(Self.dispatcher(harness, receiver))
        let after = try await harness.storage.webhooks.endpoint(id: endpoint.id)
        #expect(after.disabled && after.disabledReason == "the endpoint answered 410 Gone")
        _ = try await harness.user()
        try await harness.advance(by: .seconds(3600))
        #expect(try await Self.drain(Self.dispatcher(harness, receiver)) == WebhookDispatcher.Report())
        let page = try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 10, cursor: nil)
        #expect(page.deliveries.map(\.status) == ["failed"])
        #expect(receiver.requests.count == 1)
    }

    @Test(arguments: Backend.available)
    func duringARotationBothSecretsSignAndAfterItOnlyTheNewOne(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        let old = try #require(endpoint.secret)
        let rotated = try await harness.storage.webhooks.rotateSecret(id: endpoint.id, secret: .generate(), overlap: 86_400)
        let new = try #require(rotated.secret)
        #expect(new != old && rotated.previousSecretUntil == harness.clock.now.addingTimeInterval(86_400))
        _ = try await harness.user()
        let receiver = ScriptedReceiver()
        _ = try await Self.drain(Self.dispatcher(harness, receiver))
        let during = try #require(receiver.requests.last)
        #expect(Self.verifies(during, secret: old) && Self.verifies(during, secret: new))
        #expect(during.headers["webhook-signature"]?.split(separator: " ").count == 2)
        try await harness.advance(by: .seconds(86_401))
        _ = try await harness.user()
        _ = try await Self.drain(Self.dispatcher(harness, receiver))
        let afterwards = try #require(receiver.requests.last)
        #expect(Self.verifies(afterwards, secret: new) && !Self.verifies(afterwards, secret: old))
    }

    @Test(arguments: Backend.available)
    func aReplaySendsTheSameEventAgainUnderItsId(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        let receiver = ScriptedReceiver()
        _ = try await Self.drain(Self.dispatcher(harness, receiver))
        let first = try #require(receiver.requests.first)
        let replayed = try await harness.storage.webhooks.replay(endpointID: endpoint.id, eventID: first.event.id)
        #expect(replayed.status == "pending")
        _ = try await Self.drain(Self.dispatcher(harness, receiver))
        #expect(receiver.requests.count == 2)
        #expect(receiver.requests[1].headers["webhook-id"] == first.headers["webhook-id"])
        #expect(receiver.requests[1].body == first.body)
        #expect(try await harness.storage.webhooks.attempts(endpointID: endpoint.id, eventID: first.event.id).count == 2)
        await #expect(throws: StorageError.self) { _ = try await harness.storage.webhooks.replay(endpointID: endpoint.id, eventID: "evt_none") }
    }

    @Test(arguments: Backend.available)
    func anEndpointGetsOnlyTheTypesItAskedFor(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let spends = try await harness.storage.webhooks.createEndpoint(
            url: "https://spends.example.com/", description: "", eventTypes: [.creditsSpent], secret: .generate())
        let all = try await harness.storage.webhooks.createEndpoint(url: "https://all.example.com/", description: "", eventTypes: [], secret: .generate())
        let user = try await harness.user()
        _ = try await harness.storage.spending.spend(user: user, request: SpendRequest(currency: "credits", amount: 1, idempotencyKey: "k"))
        let receiver = ScriptedReceiver()
        _ = try await Self.drain(Self.dispatcher(harness, receiver))
        let byURL = Dictionary(grouping: receiver.requests, by: \.url).mapValues { $0.map(\.event.type) }
        #expect(byURL["https://spends.example.com/"] == [.creditsSpent])
        #expect(byURL["https://all.example.com/"]?.sorted { $0.rawValue < $1.rawValue } == [.creditsGranted, .creditsSpent])
        // A changed filter applies to later events.
        _ = try await harness.storage.webhooks.updateEndpoint(id: spends.id, change: WebhookEndpointChange(eventTypes: []))
        _ = try await harness.user()
        _ = try await Self.drain(Self.dispatcher(harness, receiver))
        #expect(receiver.requests.filter { $0.url == "https://spends.example.com/" }.count == 2)
        _ = all
    }

    @Test(arguments: Backend.available)
    func twoWorkersSendEachEventOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        _ = try await harness.storage.webhooks.createEndpoint(url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        for _ in 0..<60 { _ = try await harness.user() }
        let receiver = ScriptedReceiver()
        var first = Self.dispatcher(harness, receiver)
        first.concurrency = 7
        var second = Self.dispatcher(harness, receiver)
        second.concurrency = 5
        async let a = Self.drain(first)
        async let b = Self.drain(second)
        let (one, two) = try await (a, b)
        #expect(one.delivered + two.delivered == 60)
        let ids = receiver.requests.compactMap { $0.headers["webhook-id"] }
        #expect(ids.count == 60 && Set(ids).count == 60)
    }

    @Test(arguments: Backend.available)
    func aWorkerThatDiesMidDeliveryLeavesItToAnotherOnceItsLeaseEnds(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        // Claimed, then the worker is gone: no attempt is recorded.
        let claimed = try await harness.storage.webhooks.claimDeliveries(limit: 10, lease: 45)
        #expect(claimed.count == 1)
        let receiver = ScriptedReceiver()
        #expect(try await Self.drain(Self.dispatcher(harness, receiver)) == WebhookDispatcher.Report())
        try await harness.advance(by: .seconds(46))
        #expect(try await Self.drain(Self.dispatcher(harness, receiver)).delivered == 1)
        #expect(receiver.requests.first?.headers["webhook-id"] == claimed[0].eventID)
        // The dead worker's late record does not undo the delivery.
        try await harness.storage.webhooks.recordAttempts([
            RecordedAttempt(
                delivery: claimed[0], result: AttemptResult(startedAt: harness.clock.now, statusCode: 500, latencyMilliseconds: 3), retryAfter: 5,
                disable: nil)
        ])
        let delivery = try #require(try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 1, cursor: nil).deliveries.first)
        #expect(delivery.status == "delivered")
    }

    @Test(arguments: Backend.available)
    func deletingAnEndpointRemovesItsDeliveriesAndAttempts(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        _ = try await Self.drain(Self.dispatcher(harness, ScriptedReceiver()))
        try await harness.storage.webhooks.deleteEndpoint(id: endpoint.id)
        await #expect(throws: StorageError.self) { _ = try await harness.storage.webhooks.endpoint(id: endpoint.id) }
        let left = try await harness.database.read { executor in
            try await executor.query("SELECT (SELECT COUNT(*) FROM webhook_deliveries) + (SELECT COUNT(*) FROM webhook_attempts) AS n", [])[0].int(
                SQLColumn("n"))
        }
        #expect(left == 0)
        // The events stay: they are the record of what changed.
        #expect(try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: nil, limit: 10).events.count == 1)
    }

    @Test(arguments: Backend.available)
    func aDisabledEndpointsDeliveriesWaitPausedAndResumeWhenEnabled(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        _ = try await harness.storage.webhooks.updateEndpoint(id: endpoint.id, change: WebhookEndpointChange(disabled: true))
        _ = try await harness.user()  // queued for nobody: the endpoint is disabled
        let receiver = ScriptedReceiver()
        #expect(try await Self.drain(Self.dispatcher(harness, receiver)) == WebhookDispatcher.Report())
        var page = try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 10, cursor: nil)
        #expect(page.deliveries.map(\.status) == ["paused"])
        await #expect(throws: StorageError.self) { _ = try await harness.storage.webhooks.replay(endpointID: endpoint.id, eventID: page.deliveries[0].eventID) }
        _ = try await harness.storage.webhooks.updateEndpoint(id: endpoint.id, change: WebhookEndpointChange(disabled: false))
        #expect(try await Self.drain(Self.dispatcher(harness, receiver)).delivered == 1)
        page = try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 10, cursor: nil)
        #expect(page.deliveries.map(\.status) == ["delivered"])
    }

    @Test(arguments: Backend.available)
    func aSecondRotationWaitsForTheFirstToEnd(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.storage.webhooks.rotateSecret(id: endpoint.id, secret: .generate(), overlap: 86_400)
        await #expect(throws: StorageError.self) { _ = try await harness.storage.webhooks.rotateSecret(id: endpoint.id, secret: .generate(), overlap: 86_400) }
        try await harness.advance(by: .seconds(86_401))
        _ = try await harness.storage.webhooks.rotateSecret(id: endpoint.id, secret: .generate(), overlap: 86_400)
    }

    @Test(arguments: Backend.available)
    func anEventBeingSentIsNotReplayedTwiceAtOnce(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        let claimed = try await harness.storage.webhooks.claimDeliveries(limit: 1, lease: 45)
        let error = await #expect(throws: StorageError.self) {
            _ = try await harness.storage.webhooks.replay(endpointID: endpoint.id, eventID: claimed[0].eventID)
        }
        #expect(error?.code == .conflict)
    }

    @Test(arguments: Backend.available)
    func anAnswerWithNulAndBinaryIsKeptAsText(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let endpoint = try await harness.storage.webhooks.createEndpoint(
            url: "https://hooks.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        let excerpt = HTTPWebhookTransport.excerpt([0x1F, 0x8B, 0x00, 0x41, 0x0A, 0xFF, 0x42])
        #expect(excerpt == "\u{FFFD}A\n\u{FFFD}B")
        let receiver = ScriptedReceiver { _, _ in WebhookResponse(statusCode: 500, excerpt: excerpt) }
        #expect(try await Self.drain(Self.dispatcher(harness, receiver)).failedAttempts == 1)
        let delivery = try #require(try await harness.storage.webhooks.deliveries(endpointID: endpoint.id, status: nil, limit: 1, cursor: nil).deliveries.first)
        #expect(try await harness.storage.webhooks.attempts(endpointID: endpoint.id, eventID: delivery.eventID).first?.responseExcerpt == excerpt)
    }

    @Test(arguments: Backend.available)
    func anEndpointDeletedWhileItsDeliveryIsInFlightLosesNothingElse(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let doomed = try await harness.storage.webhooks.createEndpoint(url: "https://doomed.example.com/", description: "", eventTypes: [], secret: .generate())
        let kept = try await harness.storage.webhooks.createEndpoint(url: "https://kept.example.com/", description: "", eventTypes: [], secret: .generate())
        _ = try await harness.user()
        let claimed = try await harness.storage.webhooks.claimDeliveries(limit: 10, lease: 45)
        #expect(claimed.count == 2)
        try await harness.storage.webhooks.deleteEndpoint(id: doomed.id)
        try await harness.storage.webhooks.recordAttempts(
            claimed.map {
                RecordedAttempt(
                    delivery: $0, result: AttemptResult(startedAt: harness.clock.now, statusCode: 200, latencyMilliseconds: 4), retryAfter: nil,
                    disable: nil)
            })
        let page = try await harness.storage.webhooks.deliveries(endpointID: kept.id, status: nil, limit: 10, cursor: nil)
        #expect(page.deliveries.map(\.status) == ["delivered"])
        let orphans = try await harness.database.read { executor in
            try await executor.query("SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?", [.text(doomed.id)])[0].int(SQLColumn("n"))
        }
        #expect(orphans == 0)
    }

    @Test(arguments: Backend.available)
    func aMoneyWriteDoesNotWaitForOrFailOnAnEndpointBeingDeleted(backend: Backend) async throws {
        let harness = try await Harness(backend)
        for index in 0..<5 {
            let endpoint = try await harness.storage.webhooks.createEndpoint(
                url: "https://hooks\(index).example.com/", description: "", eventTypes: [], secret: .generate())
            async let deleted: Void = harness.storage.webhooks.deleteEndpoint(id: endpoint.id)
            async let user = harness.user()
            _ = try await (deleted, user)
        }
        try await harness.checkInvariants()
    }

    @Test func theHTTPTransportReadsAnswersTimesOutAndFollowsNoRedirect() async throws {
        let router = Router()
        router.post("ok") { _, _ in "fine" }
        router.post("busy") { _, _ -> Response in
            Response(status: .serviceUnavailable, headers: [.retryAfter: "120"], body: .init(byteBuffer: ByteBuffer(string: "later")))
        }
        router.post("slow") { _, _ -> String in
            try await Task.sleep(for: .seconds(3))
            return "late"
        }
        router.post("moved") { _, _ -> Response in Response(status: .found, headers: [.location: "/ok"]) }
        router.post("trickle") { _, _ -> Response in
            // The head at once, then a body that takes longer than the timeout.
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "a"))
                    try await Task.sleep(for: .seconds(3))
                    try await writer.write(ByteBuffer(string: "b"))
                    try await writer.finish(nil)
                })
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let transport = HTTPWebhookTransport(client: http)
            func post(_ path: String, timeout: TimeInterval = 30) async -> WebhookResponse {
                await transport.post(
                    url: "http://127.0.0.1:\(port)/\(path)", headers: [("content-type", "application/json")], body: Array("{}".utf8), timeout: timeout)
            }
            let ok = await post("ok")
            #expect(ok.statusCode == 200 && ok.excerpt == "fine")
            let busy = await post("busy")
            #expect(busy.statusCode == 503 && busy.retryAfter == 120 && busy.excerpt == "later")
            let slow = await post("slow", timeout: 1)
            #expect(slow.statusCode == nil && slow.error == "timed out")
            let moved = await post("moved")
            #expect(moved.statusCode == 302)
            // The head came at once: only a deadline over the whole exchange says "timed out"
            // (without it the answer would be 200 "ab", after the body's 3 s).
            let trickle = await post("trickle", timeout: 1)
            #expect(trickle.statusCode == nil && trickle.error == "timed out")
            let refused = await transport.post(url: "http://127.0.0.1:1/", headers: [], body: [], timeout: 1)
            #expect(refused.statusCode == nil && refused.error != nil)
            try await http.shutdown()
        }
    }
}
