import AsyncHTTPClient
public import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
public import TallyCore
import TallySQL
public import TallyServer
import TallyTesting

/// How fast the delivery worker empties the outbox: `events` events are queued for one
/// endpoint while no worker runs, then a server with its worker starts and the time until a
/// receiver on loopback has every event id is measured. The baseline, in the same round and
/// against the same receiver: the same number of plain POSTs of a delivery's body from the
/// same HTTP client at the same concurrency, with no database, no claim and no signature.
public enum WebhookBenchmark {
    public struct Options: Sendable {
        public var catalogURL: URL
        /// A new temporary SQLite file when nil.
        public var database: ServerConfiguration.Database?
        public var events: Int
        /// Deliveries claimed and sent at once (the worker's batch; the baseline's concurrency).
        public var batch: Int
        public var rounds: Int

        public init(catalogURL: URL, database: ServerConfiguration.Database?, events: Int, batch: Int, rounds: Int) {
            self.catalogURL = catalogURL
            self.database = database
            self.events = events
            self.batch = batch
            self.rounds = rounds
        }
    }

    public struct Round: Sendable, Codable {
        public var deliveredPerSecond: Double
        public var baselinePerSecond: Double
        /// Deliveries that reached the receiver more than once (none expected without crashes).
        public var repeats: Int
    }

    public struct Result: Sendable, Codable {
        public var database: String
        public var durability: String
        public var events: Int
        public var batch: Int
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
        private let seen = NIOLockedValueBox<[String: (ids: Set<String>, total: Int)]>([:])
        private let first = NIOLockedValueBox<ByteBuffer?>(nil)

        func record(_ round: String, id: String, body: ByteBuffer) {
            seen.withLockedValue {
                $0[round, default: ([], 0)].ids.insert(id)
                $0[round, default: ([], 0)].total += 1
            }
            first.withLockedValue { if $0 == nil { $0 = body } }
        }

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
            let tally = Tally()
            let result = try await withReceiver(tally, logger: logger) { receiverPort in
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
                batch: options.batch, bodyBytes: result.bodyBytes, rounds: result.rounds, medianDeliveredPerSecond: delivered,
                medianBaselinePerSecond: baseline, medianRatio: median(result.rounds.map { $0.deliveredPerSecond / $0.baselinePerSecond }))
        } catch {
            try? await client.shutdown()
            await database.close()
            throw error
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// A receiver on loopback that answers 204 to every POST and notes its `webhook-id`.
    static func withReceiver<T: Sendable>(_ tally: Tally, logger: Logger, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        let router = Router()
        router.post("hook/:round") { request, context -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 1 << 20)
            let id = request.headers.first { $0.name.canonicalName == "webhook-id" }?.value ?? ""
            tally.record(context.parameters.get("round") ?? "", id: id, body: body)
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
            try await database.write { executor in try await executor.execute("UPDATE webhook_endpoints SET disabled = 1", []) }
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
            try await withThrowingTaskGroup(of: Void.self) { group in
                let workers = 8
                for worker in 0..<workers {
                    group.addTask {
                        for _ in stride(from: worker, to: options.events, by: workers) { _ = try await storage.createUser(appUserID: nil, tokenHash: nil) }
                    }
                }
                try await group.waitForAll()
            }
            progress(String(format: "round %d: %d events queued in %.1f s", round, options.events, (ContinuousClock.now - queueStart).seconds))

            // Deliver: a server with its worker, until the receiver has every id.
            var delivery = WebhookDeliveryConfiguration()
            delivery.batch = options.batch
            delivery.pollInterval = .milliseconds(20)
            let deliveryConfiguration = delivery
            let events = options.events
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
                for lane in 0..<options.batch {
                    group.addTask {
                        for index in stride(from: lane, to: events, by: options.batch) {
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
