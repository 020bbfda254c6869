import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
public import TallyCore
public import TallyServer
import TallyTesting
import TallyVerify

/// Measures the purchase server over loopback: the server runs in this process on SQLite or
/// PostgreSQL, built by the same `buildApplication` as `tally serve`, and ``HTTPLoadClient`` drives it with
/// concurrent keep-alive connections.
///
/// Each round measures, one after the other, `GET /healthz` (the baseline: the same server,
/// router, middleware and clients, and one `SELECT 1` on the read pool), purchases (verify +
/// grant of a distinct signed transaction), spends (distinct idempotency keys) and
/// `GET /v1/me`. Rates are also given as a ratio to the same round's `/healthz` rate, whose
/// median over rounds is what stays comparable on a noisy machine.
public enum ServerBenchmark: Sendable {
    /// What is measured. `/healthz` is always measured: it is the baseline of the ratios.
    public enum Endpoint: String, CaseIterable, Sendable {
        case health = "GET /healthz"
        case purchase = "POST /v1/me/purchases"
        case spend = "POST /v1/me/spend"
        case me = "GET /v1/me"
        /// The same, asking for a signed answer (`X-Tally-Nonce`): what signing costs.
        case signedMe = "GET /v1/me signed"

        /// The target rate on SQLite with durable commits, per second.
        public var targetRate: Double? {
            switch self {
            case .health, .signedMe: nil
            case .purchase: 2_000
            case .spend: 5_000
            case .me: 15_000
            }
        }
    }

    /// How to run.
    public struct Options: Sendable {
        /// Where the data lives.
        public var database: ServerConfiguration.Database
        /// The catalog; its rate limits are raised by ``run(_:progress:)``, nothing else changes.
        public var catalog: TallyCatalog
        /// Concurrent keep-alive connections.
        public var connections: Int
        /// How long each endpoint is measured in total, split evenly over the rounds.
        public var duration: Duration
        /// How many alternating rounds.
        public var rounds: Int
        /// How long each endpoint is exercised before the measured rounds.
        public var warmUp: Duration
        /// How many users the requests are spread over.
        public var users: Int
        /// How many distinct signed transactions are minted for the measured purchases: the
        /// purchase phases end early when they run out.
        public var purchases: Int
        /// The endpoints to measure besides `/healthz`.
        public var endpoints: Set<Endpoint>
        /// A backend written without Tally, measured with the same phases, after Tally's in each round.
        public var selfWritten: SelfWrittenBackend?

        /// The defaults of `tally bench server`.
        public init(
            database: ServerConfiguration.Database, catalog: TallyCatalog, connections: Int = 16, duration: Duration = .seconds(10),
            rounds: Int = 5, warmUp: Duration = .seconds(1), users: Int = 1_000, purchases: Int = 40_000,
            endpoints: Set<Endpoint> = Set(Endpoint.allCases), selfWritten: SelfWrittenBackend? = nil
        ) {
            self.database = database
            self.catalog = catalog
            self.connections = connections
            self.duration = duration
            self.rounds = rounds
            self.warmUp = warmUp
            self.users = users
            self.purchases = purchases
            self.endpoints = endpoints
            self.selfWritten = selfWritten
        }
    }

    /// A purchase backend written without Tally that serves the requests the benchmark sends
    /// (`POST /v1/users`, purchases, spends, `GET /v1/me`, `GET /healthz`): the baseline of the
    /// goals against a typical self-written backend. The caller starts and stops it.
    public struct SelfWrittenBackend: Sendable {
        /// What it is, for the report.
        public var name: String
        /// Starts it on 127.0.0.1, trusting `root` (DER) for the run's signed transactions,
        /// once it answers `GET /healthz`.
        public var start: @Sendable (_ root: [UInt8]) async throws -> Started

        /// - Parameters: as the properties.
        public init(name: String, start: @escaping @Sendable (_ root: [UInt8]) async throws -> Started) {
            self.name = name
            self.start = start
        }

        /// A running backend.
        public struct Started: Sendable {
            /// Where it listens on 127.0.0.1.
            public var port: Int
            /// Stops it and removes its files.
            public var stop: @Sendable () -> Void
            /// The end of its log, for a failure's message.
            public var log: @Sendable () -> String

            /// - Parameters: as the properties.
            public init(port: Int, stop: @escaping @Sendable () -> Void, log: @escaping @Sendable () -> String) {
                self.port = port
                self.stop = stop
                self.log = log
            }
        }
    }

    /// One endpoint's figures over all rounds.
    public struct EndpointResult: Sendable, Codable {
        /// `GET /healthz`, `POST /v1/me/purchases`, …
        public var endpoint: String
        /// Requests answered (all with the expected status).
        public var requests: Int
        /// Time spent measuring it, summed over the rounds.
        public var seconds: Double
        /// Requests per second over all rounds.
        public var rate: Double
        /// Latency percentiles over every request of every round, in milliseconds.
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double
        /// Median over rounds of this endpoint's rate ÷ the same round's `/healthz` rate.
        public var ratioToHealth: Double
        /// Each round's rate.
        public var roundRates: [Double]
        /// The target rate on SQLite, if any.
        public var targetRate: Double?
        /// The statements the server ran per request of this kind, counted in the warm-up (each
        /// a round trip on PostgreSQL; the transaction's BEGIN and COMMIT are not counted).
        public var statementsPerRequest: Double?
    }

    /// What a run measured.
    public struct Result: Sendable, Codable {
        /// `SQLite …` or `PostgreSQL …`.
        public var database: String
        /// The database's durability settings as read back from it (`journal_mode=wal synchronous=2`…).
        public var durability: String
        public var connections: Int
        public var rounds: Int
        public var users: Int
        /// The rate limits the benchmark's server ran with (requests per minute per user and per IP).
        public var rateLimitPerMinute: Int
        /// The endpoints, `/healthz` first.
        public var endpoints: [EndpointResult]
        /// Set-up steps and their rates, for the record.
        public var setup: [String]
        /// The latency every endpoint's p99 should stay under, in milliseconds.
        public var p99TargetMilliseconds: Double
        /// Baseline: 4 KB appended and `fsync`ed in the temporary folder, measured at the start of
        /// each round; every write request waits for one such flush (of its batch).
        public var durableWriteP50Milliseconds: Double
        public var durableWriteP99Milliseconds: Double
        public var roundDurableWriteP50Milliseconds: [Double]
        /// On PostgreSQL with pgbench installed: its runs on the same server, before and after
        /// the rounds (filled in by `tally bench server`).
        public var pgbench: [PgbenchFigures] = []
        /// The self-written backend, measured with the same phases, after Tally's in each round.
        public var selfWritten: SelfWrittenResult?
    }

    /// What the self-written backend did under the same phases.
    public struct SelfWrittenResult: Sendable, Codable {
        /// ``SelfWrittenBackend/name``.
        public var name: String
        /// Its endpoints, `/healthz` first (the statements are not counted).
        public var endpoints: [EndpointResult]
        /// Its set-up steps and their rates.
        public var setup: [String]

        /// Tally's rate as a multiple of this backend's, for an endpoint both measured.
        public func multiple(of tally: EndpointResult) -> Double? {
            guard let own = endpoints.first(where: { $0.endpoint == tally.endpoint }), own.rate > 0 else { return nil }
            return tally.rate / own.rate
        }

        /// The goal for Tally's rate over a typical self-written backend's: ×12 purchases,
        /// ×10 spends, ×20 reads.
        public static func goal(_ endpoint: String) -> Double? {
            switch endpoint {
            case Endpoint.purchase.rawValue: 12
            case Endpoint.spend.rawValue: 10
            case Endpoint.me.rawValue: 20
            default: nil
            }
        }
    }

    /// One pgbench run against the benchmark's PostgreSQL server: its select-only and TPC-B-like rates.
    public struct PgbenchFigures: Sendable, Codable {
        /// Client connections (as many as the benchmark's).
        public var clients: Int
        /// The scale initialised (branches).
        public var scale: Int
        /// Seconds each script ran.
        public var seconds: Int
        /// `pgbench -S`: one primary-key SELECT per transaction, per second.
        public var selectOnly: Double
        /// The default TPC-B-like script: three UPDATEs, a SELECT and an INSERT per transaction, per second.
        public var tpcbLike: Double

        /// - Parameters: as the properties.
        public init(clients: Int, scale: Int, seconds: Int, selectOnly: Double, tpcbLike: Double) {
            self.clients = clients
            self.scale = scale
            self.seconds = seconds
            self.selectOnly = selectOnly
            self.tpcbLike = tpcbLike
        }
    }

    /// A benchmark that could not produce honest figures.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The rate limit the benchmark's own server runs with: far above anything one machine can send.
    public static var rateLimitPerMinute: Int { InProcessServer.rateLimitPerMinute }

    static let host = InProcessServer.host
    /// Durable writes timed per round for the disk baseline.
    static let durableWriteSamples = 40
    static let fundingProduct = "com.tally.photo.credits.100"
    static let purchaseProduct = "com.tally.photo.credits.10"
    static let spendCurrency = "credits"

    /// Starts the server, runs the phases, stops the server.
    /// - Parameters:
    ///   - options: what to run.
    ///   - progress: receives a line at each step.
    /// - Throws: ``Failure`` or ``HTTPLoadClient/Failure`` when a request fails: a figure for failures is no figure.
    public static func run(_ options: Options, progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        let catalog = InProcessServer.benchmarkCatalog(options.catalog)
        guard catalog.product(fundingProduct) != nil, catalog.product(purchaseProduct) != nil, catalog.hasCurrency(spendCurrency) else {
            throw Failure(
                description: "the catalog needs \(fundingProduct), \(purchaseProduct) and the currency \(spendCurrency) (Examples/tally.json has them)")
        }

        var logger = Logger(label: "tally.bench")
        logger.logLevel = .warning
        let (opened, durability) = try await InProcessServer.open(options.database, logger: logger)
        let sqlDatabase = StatementCounter(opened)
        progress("database: \(options.database), \(durability)")

        let issuedAt = Date()
        let authority = try TestCertificateAuthority(profile: .init(issuedAt: issuedAt))
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(
                try await InProcessServer.run(
                    database: sqlDatabase, catalog: catalog, trusting: authority, logger: logger,
                    responseSigningKey: try ResponseSigningKey.issue(root: Curve25519.Signing.PrivateKey(), expiresAt: Date().addingTimeInterval(86_400))
                ) { port in
                    let client = HTTPLoadClient(host: host, port: port)
                    let outcome: Swift.Result<Result, any Error>
                    do {
                        outcome = .success(
                            try await measure(
                                options, client: client, counter: sqlDatabase, authority: authority, issuedAt: issuedAt,
                                catalog: catalog, port: port, durability: durability, progress: progress))
                    } catch {
                        outcome = .failure(error)
                    }
                    try? await client.shutdown()
                    return try outcome.get()
                })
        } catch {
            result = .failure(error)
        }
        await sqlDatabase.close()
        return try result.get()
    }

    struct BenchUser: Sendable {
        var token: String
        var appAccountToken: String
    }

    static func measure(
        _ options: Options, client: HTTPLoadClient, counter: StatementCounter, authority: TestCertificateAuthority, issuedAt: Date, catalog: TallyCatalog,
        port: Int, durability: String, progress: @escaping @Sendable (String) -> Void
    ) async throws -> Result {
        let endpoints = [Endpoint.health] + Endpoint.allCases.filter { $0 != .health && options.endpoints.contains($0) }
        let tally = try await prepare(
            options, endpoints: endpoints, client: client, port: port, counter: counter, authority: authority, issuedAt: issuedAt,
            catalog: catalog, progress: progress)
        guard let backend = options.selfWritten else {
            return try await interleave(options, tally: tally, other: nil, durability: durability)
        }
        progress("starting the self-written backend: \(backend.name)…")
        let started = try await backend.start(authority.rootDER)
        defer { started.stop() }
        let otherClient = HTTPLoadClient(host: host, port: started.port)
        let result: Swift.Result<Result, any Error>
        do {
            // The same phases; a signed answer is Tally's own, so it has none.
            let other = try await prepare(
                options, endpoints: endpoints.filter { $0 != .signedMe }, client: otherClient, port: started.port, counter: nil,
                authority: authority, issuedAt: issuedAt, catalog: catalog, progress: { progress("self-written: " + $0) })
            result = .success(try await interleave(options, tally: tally, other: (backend.name, other), durability: durability))
        } catch {
            let log = started.log()
            result = .failure(log.isEmpty ? error : Failure(description: "\(error); the self-written backend's log ends: \(log)"))
        }
        try? await otherClient.shutdown()
        return try result.get()
    }

    /// A server made ready for the rounds: its users funded, its transactions minted, its
    /// endpoints warmed up (and, for Tally's, their statements counted).
    struct Prepared {
        var endpoints: [Endpoint]
        var client: HTTPLoadClient
        var connections: Int
        var setup: [String]
        var statementsPerRequest: [Double?]
        /// The signed transactions of the measured purchases, shared out over the rounds.
        var pool: [String]
        /// The phases of one round (or the warm-up): `label` keeps idempotency keys distinct.
        var phases: @Sendable (_ label: String, _ duration: Duration, _ purchases: ArraySlice<String>) -> [HTTPLoadClient.Phase]
        var progress: @Sendable (String) -> Void
    }

    /// Creates the users, mints and posts their funding, and warms up the server on `port`;
    /// `counter`, when given, counts the statements of each kind of request in the warm-up.
    static func prepare(
        _ options: Options, endpoints: [Endpoint], client: HTTPLoadClient, port: Int, counter: StatementCounter?,
        authority: TestCertificateAuthority, issuedAt: Date, catalog: TallyCatalog, progress: @escaping @Sendable (String) -> Void
    ) async throws -> Prepared {
        let hostHeader = "\(host):\(port)"
        let connections = options.connections
        var setup: [String] = []

        // Users, through the API.
        let created = try await client.run(
            .init(name: "POST /v1/users", expectedStatus: 201, limit: options.users, duration: nil, keepBodies: true) { _ in
                .init(.POST, "/v1/users", host: hostHeader, json: "{}")
            }, connections: connections)
        let decoder = TallyAPI.decoder()
        let users: [BenchUser] = try (0..<options.users).map { index in
            guard let body = created.bodies[index] else { throw Failure(description: "no answer for user \(index)") }
            let response = try decoder.decode(CreateUserResponse.self, from: Data(body.readableBytesView))
            return BenchUser(token: response.userToken, appAccountToken: response.appAccountToken.uuidString.lowercased())
        }
        setup.append(String(format: "POST /v1/users: %d users at %.0f/s", users.count, created.rate))
        progress(setup.last!)

        // Signed transactions, minted before any timing: one funding purchase per user, the
        // warm-up's purchases and the measured ones, each distinct and bound to its user.
        let warmUpPurchases = min(options.purchases, 5_000)
        progress("minting \(users.count + warmUpPurchases + options.purchases) signed transactions…")
        let firstID = Int64.random(in: 1_000_000_000_000_000...8_000_000_000_000_000)
        let funding = try await mint(
            authority, count: users.count, firstID: firstID, product: fundingProduct, quantity: 10,
            users: users, bundleID: catalog.app.bundleID, at: issuedAt)
        let warmUpPool = try await mint(
            authority, count: warmUpPurchases, firstID: firstID + 10_000_000, product: purchaseProduct,
            quantity: 1, users: users, bundleID: catalog.app.bundleID, at: issuedAt)
        let pool = try await mint(
            authority, count: options.purchases, firstID: firstID + 20_000_000, product: purchaseProduct,
            quantity: 1, users: users, bundleID: catalog.app.bundleID, at: issuedAt)

        // Funding: 10 × 100 credits per user, so that no spend phase runs dry.
        let funded = try await client.run(purchasePhase("funding purchases", funding[...], users, hostHeader, duration: nil), connections: connections)
        setup.append(String(format: "funding purchases (%@ × 10): %d at %.0f/s", fundingProduct, funded.completed, funded.rate))
        progress(setup.last!)
        let spendCapacityPerPhase = users.count * 1_000 / (options.rounds + 1)

        // One nonce for every signed request: its cost is the signature's, whatever the nonce.
        let signingNonce = ResponseSignature.makeNonce()
        let phases: @Sendable (String, Duration, ArraySlice<String>) -> [HTTPLoadClient.Phase] = { label, duration, purchases in
            let time = TimeAmount.nanoseconds(Int64(duration.seconds * 1e9))
            return endpoints.map { endpoint in
                switch endpoint {
                case .health:
                    return .init(name: endpoint.rawValue, limit: .max, duration: time) { _ in .init(.GET, "/healthz", host: hostHeader) }
                case .purchase:
                    return purchasePhase(endpoint.rawValue, purchases, users, hostHeader, duration: time)
                case .spend:
                    return .init(name: endpoint.rawValue, limit: spendCapacityPerPhase, duration: time) { index in
                        let user = users[index % users.count]
                        return .init(
                            .POST, "/v1/me/spend", host: hostHeader, bearer: user.token,
                            json:
                                #"{"currency":"\#(spendCurrency)","amount":1,"idempotency_key":"\#(label)-\#(index)","reference":"bench"}"#)
                    }
                case .me:
                    return .init(name: endpoint.rawValue, limit: .max, duration: time) { index in
                        .init(.GET, "/v1/me", host: hostHeader, bearer: users[index % users.count].token)
                    }
                case .signedMe:
                    return .init(name: endpoint.rawValue, limit: .max, duration: time) { index in
                        var request = HTTPLoadClient.Request(.GET, "/v1/me", host: hostHeader, bearer: users[index % users.count].token)
                        request.head.headers.add(name: ResponseSignature.nonceHeader, value: signingNonce)
                        return request
                    }
                }
            }
        }

        progress("warming up…")
        // The warm-up also counts the statements each kind of request runs (the rounds do not count).
        var statementsPerRequest: [Double?] = []
        for phase in phases("warm-up", options.warmUp, warmUpPool[...]) {
            guard let counter else {
                _ = try await client.run(phase, connections: connections)
                statementsPerRequest.append(nil)
                continue
            }
            var completed = 0
            let statements = try await counter.count { completed = try await client.run(phase, connections: connections).completed }
            statementsPerRequest.append(completed > 0 ? Double(statements) / Double(completed) : nil)
        }
        return Prepared(
            endpoints: endpoints, client: client, connections: connections, setup: setup, statementsPerRequest: statementsPerRequest,
            pool: pool, phases: phases, progress: progress)
    }

    /// Runs the rounds: in each, the disk's baseline, then Tally's phases, then, when given,
    /// the self-written backend's, so that both meet the same moments of a noisy machine.
    static func interleave(
        _ options: Options, tally: Prepared, other: (name: String, prepared: Prepared)?, durability: String
    ) async throws -> Result {
        let targets = [tally] + (other.map { [$0.prepared] } ?? [])
        let rounds = max(1, options.rounds)
        let slice = options.duration / rounds
        let perRound = options.purchases / rounds
        var measurements: [[[HTTPLoadClient.Measurement]]] = targets.map { _ in [] }
        // The disk's speed in each round, beside the phases that wait for it.
        let fsyncFile = FileManager.default.temporaryDirectory.appendingPathComponent("tally-bench-fsync-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: fsyncFile) }
        var durableWrites: [UInt64] = []
        var roundDurableWriteP50: [Double] = []
        for round in 0..<rounds {
            let writes = try DurableWriteBaseline.measure(durableWriteSamples, file: fsyncFile)
            durableWrites += writes
            roundDurableWriteP50.append(percentile(writes.sorted(), 0.50))
            for (index, target) in targets.enumerated() {
                let purchases = target.pool[(round * perRound)..<((round + 1) * perRound)]
                var row: [HTTPLoadClient.Measurement] = []
                for phase in target.phases("round\(round)", slice, purchases) {
                    row.append(try await target.client.run(phase, connections: target.connections))
                }
                measurements[index].append(row)
                target.progress(
                    "round \(round + 1)/\(rounds): "
                        + zip(row, target.endpoints)
                        .map { String(format: "%@ %.0f/s", $1.rawValue, $0.rate) }.joined(separator: ", ")
                        + String(format: "; write+fsync p50 %.2f ms", roundDurableWriteP50.last ?? 0))
            }
        }

        func results(_ target: Prepared, _ measured: [[HTTPLoadClient.Measurement]]) -> [EndpointResult] {
            target.endpoints.indices.map { column in
                let rows = measured.map { $0[column] }
                var latencies = rows.flatMap(\.latencies)
                latencies.sort()
                let requests = rows.reduce(0) { $0 + $1.completed }
                let nanoseconds = rows.reduce(0) { $0 + $1.nanoseconds }
                let ratios = zip(rows, measured.map { $0[0] }).map { $0.rate / $1.rate }.sorted()
                return EndpointResult(
                    endpoint: target.endpoints[column].rawValue, requests: requests, seconds: Double(nanoseconds) / 1e9,
                    rate: Double(requests) / (Double(nanoseconds) / 1e9),
                    p50Milliseconds: percentile(latencies, 0.50), p99Milliseconds: percentile(latencies, 0.99),
                    ratioToHealth: ratios[ratios.count / 2], roundRates: rows.map(\.rate), targetRate: target.endpoints[column].targetRate,
                    statementsPerRequest: target.statementsPerRequest[column])
            }
        }
        var result = Result(
            database: options.database.description, durability: durability, connections: options.connections, rounds: rounds,
            users: options.users, rateLimitPerMinute: rateLimitPerMinute, endpoints: results(tally, measurements[0]), setup: tally.setup,
            p99TargetMilliseconds: 25, durableWriteP50Milliseconds: percentile(durableWrites.sorted(), 0.50),
            durableWriteP99Milliseconds: percentile(durableWrites.sorted(), 0.99), roundDurableWriteP50Milliseconds: roundDurableWriteP50)
        if let other {
            result.selfWritten = SelfWrittenResult(name: other.name, endpoints: results(other.prepared, measurements[1]), setup: other.prepared.setup)
        }
        return result
    }

    /// Posts `jws[i]` as the user it was minted for: the one at `(first + i) % users.count`, where
    /// `first` is the slice's offset in the pool it was minted in.
    static func purchasePhase(_ name: String, _ jws: ArraySlice<String>, _ users: [BenchUser], _ host: String, duration: TimeAmount?) -> HTTPLoadClient.Phase {
        let first = jws.startIndex
        return .init(name: name, limit: jws.count, duration: duration) { index in
            .init(
                .POST, "/v1/me/purchases", host: host, bearer: users[(first + index) % users.count].token,
                json: #"{"signed_transaction":""# + jws[first + index] + #""}"#)
        }
    }

    /// `count` distinct sandbox transactions of `product`, the i-th bound to user `i % users.count`,
    /// minted on every core.
    static func mint(
        _ authority: TestCertificateAuthority, count: Int, firstID: Int64, product: String, quantity: Int,
        users: [BenchUser], bundleID: String, at date: Date
    ) async throws -> [String] {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunk = (count + workers - 1) / workers
        return try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for start in stride(from: 0, to: count, by: max(1, chunk)) {
                group.addTask {
                    var signed: [String] = []
                    for index in start..<min(count, start + chunk) {
                        var payload = TransactionPayload()
                        payload.transactionID = String(firstID + Int64(index))
                        payload.originalTransactionID = payload.transactionID
                        payload.bundleID = bundleID
                        payload.productID = product
                        payload.type = .consumable
                        payload.quantity = quantity
                        payload.price = 990
                        payload.currency = "USD"
                        payload.environment = .sandbox
                        payload.storefront = "USA"
                        payload.inAppOwnershipType = .purchased
                        payload.transactionReason = .purchase
                        payload.purchaseDate = date
                        payload.originalPurchaseDate = date
                        payload.signedDate = date
                        payload.appAccountToken = users[index % users.count].appAccountToken
                        signed.append(try authority.sign(payload))
                    }
                    return (start, signed)
                }
            }
            var parts: [(Int, [String])] = []
            for try await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// The nearest-rank percentile of sorted nanoseconds, in milliseconds.
    static func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(sorted.count - 1, max(0, rank - 1))]) / 1e6
    }
}
