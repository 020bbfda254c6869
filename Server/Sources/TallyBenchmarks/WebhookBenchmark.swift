import AsyncHTTPClient
public import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import TallyCore
import TallySQL
public import TallyServer
import TallyTesting

/// How fast the delivery worker empties the outbox: `events` events are queued for one
/// endpoint while no worker runs, then a server with its worker starts and the time until a
/// receiver on loopback has every event id is measured. The baseline, in the same round and
/// against the same receiver: the same number of plain POSTs of a delivery's body from the
/// same HTTP client at the same concurrency, with no database, no claim and no signature.
///
/// With a slow receiver (`slowPercent` above 0) the events come in at a steady `rate` while the
/// worker runs, the receiver answers every n-th request only after the worker's timeout, and
/// what is measured is each event's delay from its commit (its `timestamp`) to its first
/// arrival at the receiver.
public enum WebhookBenchmark: Sendable {
    public struct Options: Sendable {
        public var catalogURL: URL
        /// A new temporary SQLite file when nil.
        public var database: ServerConfiguration.Database?
        public var events: Int
        /// Requests in flight at once to the endpoint (the worker's window and per-endpoint
        /// share, there being one endpoint; the baseline's concurrency).
        public var concurrency: Int
        public var rounds: Int
        /// The share of answers that come after the timeout, in percent; 0 for none.
        public var slowPercent: Double = 0
        /// With a slow receiver: events a second, committed at a steady pace while the worker runs.
        public var rate: Double = 50
        /// The worker's timeout (the slow answers come a second after it).
        public var timeout: TimeInterval = 15

        public init(catalogURL: URL, database: ServerConfiguration.Database?, events: Int, concurrency: Int, rounds: Int) {
            self.catalogURL = catalogURL
            self.database = database
            self.events = events
            self.concurrency = concurrency
            self.rounds = rounds
        }
    }

    public struct Round: Sendable, Codable {
        public var deliveredPerSecond: Double
        /// 0 with a slow receiver (no baseline is run).
        public var baselinePerSecond: Double
        /// Deliveries that reached the receiver more than once (none expected without crashes;
        /// with a slow receiver, the late answers, which count as failed and are sent again).
        public var repeats: Int
        /// With a slow receiver: the events' delays from commit to first arrival, in seconds.
        public var medianDelay: Double?
        public var p99Delay: Double?
        public var maxDelay: Double?
        /// With a slow receiver: the answers that came after the timeout.
        public var slowAnswers: Int?
    }

    public struct Result: Sendable, Codable {
        public var database: String
        public var durability: String
        public var events: Int
        public var concurrency: Int
        public var slowPercent: Double
        public var rate: Double?
        public var timeout: TimeInterval
        public var bodyBytes: Int
        public var rounds: [Round]
        public var medianDeliveredPerSecond: Double
        public var medianBaselinePerSecond: Double
        /// Delivery throughput as a fraction of the same round's baseline, the median over rounds.
        public var medianRatio: Double
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What the receiver saw, per round path.
    final class Tally: Sendable {
        private let seen = NIOLockedValueBox<[String: (ids: Set<String>, total: Int, delays: [Double])]>([:])
        private let first = NIOLockedValueBox<ByteBuffer?>(nil)
        private let requests = NIOLockedValueBox(0)
        /// Every `slowEvery`-th request is answered late; 0 for none.
        let slowEvery: Int

        init(slowEvery: Int = 0) {
            self.slowEvery = slowEvery
        }

        /// Notes a request; whether to answer it late.
        func record(_ round: String, id: String, body: ByteBuffer, at arrival: Date) -> Bool {
            let isFirst = seen.withLockedValue {
                $0[round, default: ([], 0, [])].total += 1
                return $0[round, default: ([], 0, [])].ids.insert(id).inserted
            }
            if isFirst, slowEvery > 0, let event = try? TallyAPI.decoder().decode(TallyEvent.self, from: Data(body.readableBytesView)) {
                let delay = arrival.timeIntervalSince(event.timestamp)
                seen.withLockedValue { $0[round, default: ([], 0, [])].delays.append(delay) }
            }
            first.withLockedValue { if $0 == nil { $0 = body } }
            guard slowEvery > 0, round.hasPrefix("r") else { return false }
            return requests.withLockedValue {
                $0 += 1
                return $0 % slowEvery == 0
            }
        }

        func delays(_ round: String) -> [Double] { seen.withLockedValue { $0[round]?.delays ?? [] } }

        /// The first body received: what the baseline posts.
        var sample: ByteBuffer? { first.withLockedValue { $0 } }

        func counts(_ round: String) -> (distinct: Int, total: Int) {
            seen.withLockedValue { ($0[round]?.ids.count ?? 0, $0[round]?.total ?? 0) }
        }
    }

    public static func run(_ options: Options, progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        let logger = {
            var logger = Logger(label: "tally.bench.webhooks")
            logger.logLevel = .warning
            return logger
        }()
        let catalog = InProcessServer.benchmarkCatalog(try TallyCatalog.load(contentsOf: options.catalogURL))
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("tally-bench-webhooks-\(UUID().uuidString).sqlite").path
        let (database, durability) = try await InProcessServer.open(options.database ?? .sqlite(path: temporary), logger: logger)
        defer {
            if options.database == nil {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
            }
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await database.migrate(Migrations.all)
            let tally = Tally(slowEvery: options.slowPercent > 0 ? max(1, Int((100 / options.slowPercent).rounded())) : 0)
            let result = try await withReceiver(tally, lateBy: .milliseconds(Int64(options.timeout * 1000) + 1000), logger: logger) { receiverPort in
                try await rounds(
                    options, database: database, catalog: catalog, client: client, tally: tally, receiverPort: receiverPort, logger: logger,
                    progress: progress)
            }
            try await client.shutdown()
            await database.close()
            let delivered = median(result.rounds.map(\.deliveredPerSecond))
            let baseline = median(result.rounds.map(\.baselinePerSecond))
            return Result(
                database: database.dialect == .sqlite ? "SQLite" : "PostgreSQL", durability: durability, events: options.events,
                concurrency: options.concurrency, slowPercent: options.slowPercent, rate: options.slowPercent > 0 ? options.rate : nil,
                timeout: options.timeout, bodyBytes: result.bodyBytes, rounds: result.rounds, medianDeliveredPerSecond: delivered,
                medianBaselinePerSecond: baseline,
                medianRatio: median(result.rounds.map { $0.baselinePerSecond > 0 ? $0.deliveredPerSecond / $0.baselinePerSecond : 0 }))
        } catch {
            try? await client.shutdown()
            await database.close()
            throw error
        }
    }

    /// The value at `fraction` of the sorted `values` (nearest rank); nil when there are none.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((Double(sorted.count) * fraction).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// A receiver on loopback that answers 204 to every POST and notes its `webhook-id`; the
    /// requests the tally picks, it answers `lateBy` after they came.
    static func withReceiver<T: Sendable>(
        _ tally: Tally, lateBy: Duration, logger: Logger, _ body: @escaping @Sendable (Int) async throws -> T
    ) async throws -> T {
        let router = Router()
        router.post("hook/:round") { request, context -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 1 << 20)
            let id = request.headers.first { $0.name.canonicalName == "webhook-id" }?.value ?? ""
            if tally.record(context.parameters.get("round") ?? "", id: id, body: body, at: Date()) {
                try await Task.sleep(for: lateBy)
            }
            return .noContent
        }
        return try await InProcessServer.running(
            logger: logger,
            { onServerRunning in
                Application(
                    router: router, configuration: .init(address: .hostname(InProcessServer.host, port: 0)), onServerRunning: onServerRunning,
                    logger: logger)
            }, body)
    }

    static func rounds(
        _ options: Options, database: any SQLDatabase, catalog: TallyCatalog, client: HTTPClient, tally: Tally, receiverPort: Int,
        logger: Logger, progress: @escaping @Sendable (String) -> Void
    ) async throws -> (rounds: [Round], bodyBytes: Int) {
        let storage = SQLStorage(database: database, catalog: catalog, now: { Date() })
        let secretKey = "bench-\(UUID().uuidString)"
        let authority = try TestCertificateAuthority()
        var rounds: [Round] = []
        var bodyBytes = 0
        for round in 1...options.rounds {
            let path = "r\(round)"
            // Earlier rounds' endpoints take no more events.
            _ = try await database.write { executor in try await executor.execute("UPDATE webhook_endpoints SET disabled = 1", []) }
            // Queue: an endpoint, then one sign-up event each for `events` users, with no worker running.
            let queueStart = ContinuousClock.now
            try await InProcessServer.run(
                database: database, catalog: catalog, trusting: authority, logger: logger,
                configure: {
                    $0.webhookDelivery = nil
                    $0.secretKey = secretKey
                }
            ) { port in
                var request = HTTPClientRequest(url: "http://\(InProcessServer.host):\(port)/v1/admin/webhooks")
                request.method = .POST
                request.headers.add(name: "authorization", value: "Bearer \(secretKey)")
                request.headers.add(name: "content-type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: #"{"url":"http://\#(InProcessServer.host):\#(receiverPort)/hook/\#(path)"}"#))
                let response = try await client.execute(request, timeout: .seconds(30))
                guard response.status == .created else { throw Failure(description: "creating the endpoint answered \(response.status)") }
            }
            var delivery = WebhookDeliveryConfiguration()
            delivery.concurrency = options.concurrency
            delivery.perEndpoint = options.concurrency
            delivery.timeout = options.timeout
            delivery.pollInterval = .milliseconds(20)
            let deliveryConfiguration = delivery
            let events = options.events
            if options.slowPercent > 0 {
                // Events at a steady pace while the worker runs, until the receiver has every id.
                let rate = options.rate
                let seconds = try await InProcessServer.run(
                    database: database, catalog: catalog, trusting: authority, logger: logger,
                    configure: { $0.webhookDelivery = deliveryConfiguration }
                ) { _ in
                    let start = ContinuousClock.now
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        let lanes = 8
                        for lane in 0..<lanes {
                            group.addTask {
                                for index in stride(from: lane, to: events, by: lanes) {
                                    try await Task.sleep(until: start + .milliseconds(Int64(Double(index) * 1000 / rate)), clock: .continuous)
                                    _ = try await storage.users.createUser(appUserID: nil, tokenHash: nil)
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    while tally.counts(path).distinct < events {
                        if (ContinuousClock.now - start) > .seconds(1800) { throw Failure(description: "deliveries did not finish in 30 minutes") }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    return (ContinuousClock.now - start).seconds
                }
                let counts = tally.counts(path)
                let delays = tally.delays(path).sorted()
                bodyBytes = tally.sample?.readableBytes ?? 0
                let result = Round(
                    deliveredPerSecond: Double(events) / seconds, baselinePerSecond: 0, repeats: counts.total - counts.distinct,
                    medianDelay: percentile(delays, 0.5), p99Delay: percentile(delays, 0.99), maxDelay: delays.last,
                    slowAnswers: tally.slowEvery > 0 ? counts.total / tally.slowEvery : 0)
                progress(
                    String(
                        format: "round %d: %d events at %.0f/s, delay from commit to receiver median %.3f s, p99 %.3f s, max %.3f s; %d repeats",
                        round, events, rate, result.medianDelay ?? 0, result.p99Delay ?? 0, result.maxDelay ?? 0, result.repeats))
                rounds.append(result)
                continue
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                let workers = 8
                for worker in 0..<workers {
                    group.addTask {
                        for _ in stride(from: worker, to: options.events, by: workers) {
                            _ = try await storage.users.createUser(appUserID: nil, tokenHash: nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
            progress(String(format: "round %d: %d events queued in %.1f s", round, options.events, (ContinuousClock.now - queueStart).seconds))

            // Deliver: a server with its worker, until the receiver has every id.
            let seconds = try await InProcessServer.run(
                database: database, catalog: catalog, trusting: authority, logger: logger,
                configure: { $0.webhookDelivery = deliveryConfiguration }
            ) { _ in
                let start = ContinuousClock.now
                while tally.counts(path).distinct < events {
                    if (ContinuousClock.now - start) > .seconds(600) { throw Failure(description: "deliveries did not finish in 10 minutes") }
                    try await Task.sleep(for: .milliseconds(5))
                }
                return (ContinuousClock.now - start).seconds
            }
            let counts = tally.counts(path)

            // Baseline: the same number of POSTs of a delivery's body, as many at once.
            guard let body = tally.sample else { throw Failure(description: "the receiver kept no body") }
            bodyBytes = body.readableBytes
            let baselinePath = "b\(round)"
            let baselineStart = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<options.concurrency {
                    group.addTask {
                        for index in stride(from: lane, to: events, by: options.concurrency) {
                            var request = HTTPClientRequest(url: "http://\(InProcessServer.host):\(receiverPort)/hook/\(baselinePath)")
                            request.method = .POST
                            request.headers.add(name: "content-type", value: "application/json")
                            request.headers.add(name: "webhook-id", value: "baseline-\(index)")
                            request.body = .bytes(body)
                            let response = try await client.execute(request, timeout: .seconds(30))
                            for try await _ in response.body {}
                        }
                    }
                }
                try await group.waitForAll()
            }
            let baselineSeconds = (ContinuousClock.now - baselineStart).seconds
            let result = Round(
                deliveredPerSecond: Double(events) / seconds, baselinePerSecond: Double(events) / baselineSeconds, repeats: counts.total - counts.distinct)
            progress(
                String(
                    format: "round %d: %.0f deliveries/s, baseline %.0f POSTs/s (%.2f×), %d repeats", round, result.deliveredPerSecond,
                    result.baselinePerSecond, result.deliveredPerSecond / result.baselinePerSecond, result.repeats))
            rounds.append(result)
        }
        return (rounds, bodyBytes)
    }
}
