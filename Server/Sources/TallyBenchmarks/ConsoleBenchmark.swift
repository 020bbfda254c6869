public import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TallyCore
import TallySQL
public import TallyServer
import TallyTesting

/// How fast the web console's pages render on a large database: the server runs in this
/// process on loopback, over a database filled with `entries` ledger entries, `transactions`
/// one-off store transactions and `subscriptions` auto-renewable subscriptions (with their
/// renewals) spread over `days` days, its metrics rollups rebuilt from them, and one
/// operator's browser (one connection, one request at a time) asks for the overview, the
/// metrics page and filtered lists. Each case is timed from the request sent to the whole HTML
/// page received; the baselines, in the same rounds, are `GET /healthz` (no database) and the
/// products page (a rendered page, no database); `GET /v1/admin/metrics` is timed beside them.
public enum ConsoleBenchmark: Sendable {
    public struct Options: Sendable {
        public var catalogURL: URL
        /// Where the server's data lives: a new temporary SQLite file when nil.
        public var database: ServerConfiguration.Database?
        public var entries: Int
        /// One-off purchases (every product kind but auto-renewable).
        public var transactions: Int
        /// Auto-renewable subscriptions, each one or more periods (store transactions).
        public var subscriptions: Int
        public var users: Int
        /// Days before now the rows spread over.
        public var days: Int
        /// Measured requests per case and per round.
        public var requests: Int
        public var rounds: Int
        /// Only the cases whose name contains one of these, and the baselines; every case when empty.
        public var only: [String] = []

        public init(
            catalogURL: URL, database: ServerConfiguration.Database?, entries: Int, transactions: Int, subscriptions: Int, users: Int,
            days: Int = 90, requests: Int, rounds: Int, only: [String] = []
        ) {
            self.catalogURL = catalogURL
            self.database = database
            self.entries = entries
            self.transactions = transactions
            self.subscriptions = subscriptions
            self.users = users
            self.days = days
            self.requests = requests
            self.rounds = rounds
            self.only = only
        }
    }

    /// One case's latencies over every round, in milliseconds.
    public struct Case: Sendable, Codable {
        public var name: String
        public var path: String
        public var requests: Int
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double
        public var maximumMilliseconds: Double
        /// Rows on the pages (the same for every request of a case with a fixed path).
        public var rowsOnFirstPage: Int
        public var kind: Kind
        /// Whether the goal is about it: every console page is, the baselines and the API are not.
        public var counts: Bool { kind == .list || kind == .page }
    }

    /// What a case asks for.
    public enum Kind: String, Sendable, Codable {
        /// A request that reads no database, to compare with.
        case baseline
        /// A console page listing rows (the ledger, the transactions).
        case list
        /// A console page of figures (the overview, the metrics).
        case page
        /// An admin API call (JSON).
        case api
    }

    public struct Result: Sendable, Codable {
        public var database: String
        public var entries: Int
        public var transactions: Int
        public var subscriptions: Int
        /// The store transactions the subscriptions are made of (their periods).
        public var subscriptionPeriods: Int
        public var users: Int
        public var days: Int
        /// Writing the rows (bulk INSERTs, and `ANALYZE` on PostgreSQL).
        public var fillSeconds: Double
        /// Rebuilding the metrics rollups from the rows written.
        public var rebuildSeconds: Double
        public var cases: [Case]
        /// The p99 every console page must stay under, in milliseconds.
        public var goalMilliseconds: Double
    }

    public static let goalMilliseconds = 50.0

    /// The cases: a path for request `i` and what it is.
    struct Plan: Sendable {
        var name: String
        var kind: Kind
        var path: @Sendable (Int) -> String
    }

    public static func run(_ options: Options, progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        var logger = Logger(label: "tally.bench.console")
        logger.logLevel = .warning
        let catalog = InProcessServer.benchmarkCatalog(try TallyCatalog.load(contentsOf: options.catalogURL))
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("tally-bench-console-\(UUID().uuidString).sqlite").path
        let (database, _) = try await InProcessServer.open(options.database ?? .sqlite(path: temporary), logger: logger)
        defer {
            if options.database == nil {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
            }
        }
        do {
            try await database.migrate(Migrations.all)
            let start = ContinuousClock.now
            let fill = try await fill(database, catalog: catalog, options: options, progress: progress)
            var fillSeconds = (ContinuousClock.now - start).seconds
            progress(String(format: "filled in %.1f s", fillSeconds))
            // The bulk INSERTs bypass the writes that keep the rollups: rebuild them as
            // `tally check` recomputes them.
            let rebuildStart = ContinuousClock.now
            try await MetricsRollup.rebuild(database)
            let rebuildSeconds = (ContinuousClock.now - rebuildStart).seconds
            progress(String(format: "metrics rollups rebuilt in %.1f s", rebuildSeconds))
            if database.dialect == .postgres {
                // What autovacuum does after a bulk change, done now rather than waited for: the
                // planner's statistics, of the rollups too. SQLite gathers none unless asked, and
                // is measured without. Counted in the fill.
                let analyzeStart = ContinuousClock.now
                _ = try await database.write { executor in try await executor.execute("ANALYZE", []) }
                fillSeconds += (ContinuousClock.now - analyzeStart).seconds
            }

            let storage = SQLStorage(database: database, catalog: catalog, now: { Date() })
            let token = "bench-\(UUID().uuidString)"
            try await storage.console.openSession(
                tokenHash: ConsoleSessionCookie.hash(token), actor: "bench", role: .readOnly, csrfToken: "unused",
                expiresAt: Date().addingTimeInterval(86_400), keyHash: nil)
            let cookie = "\(ConsoleSessionCookie.name)=\(token)"
            let plans = Self.plans(fill, options: options).filter { plan in
                options.only.isEmpty || plan.kind == .baseline || options.only.contains { plan.name.contains($0) }
            }
            let authority = try TestCertificateAuthority()
            let secretKey = "bench-\(UUID().uuidString)"
            let cases = try await InProcessServer.run(
                database: database, catalog: catalog, trusting: authority, logger: logger, configure: { $0.secretKey = secretKey }
            ) { port in
                try await measure(plans, port: port, cookie: cookie, secretKey: secretKey, options: options, progress: progress)
            }
            await database.close()
            return Result(
                database: database.dialect == .sqlite ? "SQLite" : "PostgreSQL", entries: options.entries, transactions: options.transactions,
                subscriptions: options.subscriptions, subscriptionPeriods: fill.subscriptionPeriods, users: options.users, days: options.days,
                fillSeconds: fillSeconds, rebuildSeconds: rebuildSeconds, cases: cases, goalMilliseconds: goalMilliseconds)
        } catch {
            await database.close()
            throw error
        }
    }

    /// What the fill made that the cases ask for.
    struct Filled: Sendable {
        var users: [String]
        var transactionIDs: [String]
        /// The one-off purchases' products.
        var products: [String]
        /// The subscriptions' products (one group), monthly first.
        var subscriptionProducts: [String]
        var subscriptionPeriods: Int
        /// The ledger's position halfway down.
        var middle: String
        /// The transactions' position halfway down.
        var middleTransaction: String
        var now: Int64
    }

    static let day: Int64 = 86_400_000

    /// Writes users, ledger entries, one-off store transactions and subscriptions with
    /// statements of many rows, ten thousand rows a transaction. Times go up with ids, as they
    /// do when a server writes them.
    static func fill(_ database: any SQLDatabase, catalog: TallyCatalog, options: Options, progress: @Sendable (String) -> Void) async throws -> Filled {
        let now = EpochMilliseconds.of(Date())
        let span = Int64(options.days) * day
        let first = now - span
        var random = SystemRandomNumberGenerator()
        let users = (0..<options.users).map { String(format: "user-%08d", $0) }
        // The subscriptions are made apart, as runs of periods; the one-off purchases are of the other products.
        let products = catalog.products.filter { $0.kind != .autoRenewable }.map(\.productID)
        guard let shape = SubscriptionShape(catalog), !products.isEmpty else {
            throw ServerBenchmark.Failure(description: "the catalog needs an auto-renewable product and another one")
        }
        for chunk in stride(from: 0, to: users.count, by: 500) {
            let rows = users[chunk..<min(users.count, chunk + 500)].enumerated().map { offset, id in
                "('\(id)', '\(UUID().uuidString.lowercased())', \(first + Int64(chunk + offset)))"
            }
            try await insert(database, "INSERT INTO users (id, app_account_token, created_at) VALUES ", rows)
        }
        let kinds: [(String, Int)] = [("spend", 55), ("purchase", 25), ("allowance_spend", 8), ("signup", 5), ("refund", 3), ("adjustment", 4)]
        let weightTotal = kinds.reduce(0) { $0 + $1.1 }
        func kind() -> String {
            var pick = Int.random(in: 0..<weightTotal, using: &random)
            for (name, weight) in kinds {
                if pick < weight { return name }
                pick -= weight
            }
            return "spend"
        }
        var written = 0
        while written < options.entries {
            let count = min(10_000, options.entries - written)
            let rows = (written..<(written + count)).map { index in
                let kind = kind()
                let currency = Int.random(in: 0..<5, using: &random) == 0 ? "seconds" : "credits"
                let amount = Int64.random(in: 1...100, using: &random) * (["purchase", "signup", "adjustment"].contains(kind) ? 1 : -1)
                let bucket = kind.hasPrefix("allowance") ? "allowance" : "balance"
                let transaction = kind == "purchase" ? "'\(2_000_000_000_000_000 + index)'" : "NULL"
                let time = first + Int64(index) * span / Int64(options.entries)
                return
                    "('\(users[Int.random(in: 0..<users.count, using: &random)])', '\(currency)', '\(bucket)', '\(kind)', \(amount), \(transaction), \(time))"
            }
            try await insert(database, "INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, transaction_id, created_at) VALUES ", rows)
            written += count
            if written % 200_000 == 0 || written == options.entries { progress("ledger entries: \(written)") }
        }
        var transactionIDs: [String] = []
        written = 0
        while written < options.transactions {
            let count = min(10_000, options.transactions - written)
            let rows = (written..<(written + count)).map { index in
                let id = String(3_000_000_000_000_000 + index)
                if index % 97 == 0 { transactionIDs.append(id) }
                let time = first + Int64(index) * span / Int64(options.transactions)
                let revoked = Int.random(in: 0..<50, using: &random) == 0
                let product = products[Int.random(in: 0..<products.count, using: &random)]
                let kind = catalog.product(product)?.kind.rawValue ?? "consumable"
                let user = users[Int.random(in: 0..<users.count, using: &random)]
                let environment = Int.random(in: 0..<10, using: &random) == 0 ? "Sandbox" : "Production"
                return """
                    ('\(id)', '\(id)', '\(user)', '\(product)', '\(kind)', '\(environment)', 1, \(time), \(time), 1, \(revoked ? 1 : 0), \
                    \(revoked ? String(time + day) : "NULL"), \(revoked ? "0" : "NULL"), 'jws', 'x', \(time), 4990, 'USD', 'USA', 'PURCHASED')
                    """
            }
            try await insert(
                database,
                """
                INSERT INTO store_transactions (transaction_id, original_transaction_id, user_id, product_id, product_kind, environment,
                    quantity, purchase_date, signed_date, granted, revoked, revocation_event_at, revocation_reason, evidence_kind, evidence,
                    received_at, price, currency, storefront, ownership)
                VALUES
                """, rows)
            written += count
        }
        progress("store transactions: \(options.transactions)")
        let periods = try await fillSubscriptions(
            database, shape: shape, users: users, options: options, now: now, random: &random, progress: progress)
        let middle = try await database.read { executor in
            try await executor.fetchOne(
                MiddleEntry.self,
                """
                SELECT \(MiddleEntry.Columns.createdAt), \(MiddleEntry.Columns.id) FROM ledger_entries \
                WHERE id = (SELECT MAX(id) FROM ledger_entries) / 2
                """)
        }
        let half = options.transactions / 2
        return Filled(
            users: users, transactionIDs: transactionIDs, products: products, subscriptionProducts: shape.plans.map(\.productID),
            subscriptionPeriods: periods, middle: "\(middle?.createdAt ?? 0)_\(middle?.id ?? 1)",
            middleTransaction: "\(first + Int64(half) * span / Int64(options.transactions))_\(3_000_000_000_000_000 + half)", now: now)
    }

    /// The ledger entry halfway through the ledger: where the console's middle page starts.
    private struct MiddleEntry: SQLRowDecodable {
        enum Columns {
            static let createdAt = SQLColumn("created_at")
            static let id = SQLColumn("id")
        }

        let createdAt: Int64?
        let id: Int64?

        init(row: SQLRow) throws(SQLDatabaseError) {
            createdAt = try row.optionalInt(Columns.createdAt)
            id = try row.optionalInt(Columns.id)
        }
    }

    static func plans(_ filled: Filled, options: Options) -> [Plan] {
        let now = filled.now
        let day: @Sendable (Int64) -> String = { daysAgo in
            let date = Date(timeIntervalSince1970: Double(now - daysAgo * Self.day) / 1000)
            return date.formatted(.iso8601.year().month().day().dateSeparator(.dash))
        }
        let users = filled.users
        let ids = filled.transactionIDs
        let product = filled.products.first ?? ""
        let subscription = filled.subscriptionProducts.first ?? ""
        let middle = filled.middle
        return [
            Plan(name: "baseline: GET /healthz", kind: .baseline) { _ in "/healthz" },
            Plan(name: "baseline: products page (no database)", kind: .baseline) { _ in "/console/products" },
            Plan(name: "overview, 30 days", kind: .page) { _ in "/console?window=30d" },
            Plan(name: "overview, 90 days", kind: .page) { _ in "/console?window=90d" },
            Plan(name: "metrics, default window (30 days)", kind: .page) { _ in "/console/metrics" },
            Plan(name: "metrics, one product", kind: .page) { _ in "/console/metrics?product=\(subscription)" },
            Plan(name: "metrics, the subscription group", kind: .page) { _ in "/console/metrics?group=\(SubscriptionShape.group)" },
            Plan(name: "metrics, 365 days", kind: .page) { _ in "/console/metrics?window=365d" },
            Plan(name: "API: GET /v1/admin/metrics, 365 days", kind: .api) { _ in "/v1/admin/metrics?from=\(day(364))&through=\(day(0))" },
            Plan(name: "ledger, newest", kind: .list) { _ in "/console/ledger" },
            Plan(name: "ledger, kind and currency", kind: .list) { _ in "/console/ledger?kind=refund&currency=seconds" },
            Plan(name: "ledger, one user", kind: .list) { index in "/console/ledger?user=\(users[(index * 7919) % users.count])" },
            Plan(name: "ledger, yesterday", kind: .list) { _ in "/console/ledger?from=\(day(1))&to=\(day(1))" },
            Plan(name: "ledger, a day 60 days ago", kind: .list) { _ in "/console/ledger?from=\(day(60))&to=\(day(60))" },
            Plan(name: "ledger, kind in a day 45 days ago", kind: .list) { _ in "/console/ledger?kind=adjustment&from=\(day(45))&to=\(day(45))" },
            Plan(name: "ledger, the last 30 days", kind: .list) { _ in "/console/ledger?from=\(day(30))&to=\(day(0))" },
            Plan(name: "ledger, all 90 days", kind: .list) { _ in "/console/ledger?from=\(day(90))&to=\(day(0))" },
            Plan(name: "ledger, up to 80 days ago", kind: .list) { _ in "/console/ledger?to=\(day(80))" },
            Plan(name: "ledger, a kind and currency with no entries", kind: .list) { _ in "/console/ledger?kind=spend&currency=report.career" },
            Plan(name: "ledger, one user's last 30 days", kind: .list) { index in
                "/console/ledger?user=\(users[(index * 7919) % users.count])&from=\(day(30))&to=\(day(0))"
            },
            Plan(name: "ledger, a page in the middle", kind: .list) { _ in "/console/ledger?before=\(middle)" },
            Plan(name: "transactions, newest", kind: .list) { _ in "/console/transactions" },
            Plan(name: "transactions, a page in the middle", kind: .list) { _ in "/console/transactions?after=\(filled.middleTransaction)" },
            Plan(name: "transactions, one product", kind: .list) { _ in "/console/transactions?product=\(product)" },
            Plan(name: "transactions, refunded", kind: .list) { _ in "/console/transactions?status=refunded" },
            Plan(name: "transactions, sandbox in a day 30 days ago", kind: .list) { _ in
                "/console/transactions?environment=Sandbox&from=\(day(30))&to=\(day(30))"
            },
            Plan(name: "transactions, one user", kind: .list) { index in "/console/transactions?user=\(users[(index * 104_729) % users.count])" },
            Plan(name: "transactions, search by id", kind: .list) { index in "/console/transactions?q=\(ids[(index * 31) % max(1, ids.count)])" },
        ]
    }

    static func measure(
        _ plans: [Plan], port: Int, cookie: String, secretKey: String, options: Options, progress: @Sendable (String) -> Void
    ) async throws -> [Case] {
        let client = HTTPLoadClient(host: InProcessServer.host, port: port)
        defer { Task { try? await client.shutdown() } }
        let host = "\(InProcessServer.host):\(port)"
        var latencies: [String: [UInt64]] = [:]
        var rows: [String: Int] = [:]
        @Sendable func request(_ plan: Plan, _ index: Int) -> HTTPLoadClient.Request {
            var request = HTTPLoadClient.Request(.GET, plan.path(index), host: host)
            if plan.kind == .api {
                request.head.headers.add(name: "Authorization", value: "Bearer \(secretKey)")
            } else {
                request.head.headers.add(name: "Cookie", value: cookie)
            }
            return request
        }
        // A warm-up of every case, then rounds in which every case takes its turn, so that
        // the machine's slow moments fall on all cases alike.
        for plan in plans {
            let phase = HTTPLoadClient.Phase(name: plan.name, limit: 10, duration: nil, keepBodies: true) { request(plan, $0) }
            let warm = try await client.run(phase, connections: 1)
            rows[plan.name] = warm.bodies[0].map { String(buffer: $0).components(separatedBy: "<tr class=\"row\">").count - 1 } ?? 0
        }
        for round in 0..<options.rounds {
            for plan in plans {
                let offset = round * options.requests
                let phase = HTTPLoadClient.Phase(name: plan.name, limit: options.requests, duration: nil) { request(plan, offset + $0) }
                latencies[plan.name, default: []] += try await client.run(phase, connections: 1).latencies
            }
            progress("round \(round + 1)/\(options.rounds) done")
        }
        return plans.map { plan in
            let sorted = (latencies[plan.name] ?? []).sorted()
            return Case(
                name: plan.name, path: plan.path(0), requests: sorted.count, p50Milliseconds: ServerBenchmark.percentile(sorted, 0.50),
                p99Milliseconds: ServerBenchmark.percentile(sorted, 0.99), maximumMilliseconds: Double(sorted.last ?? 0) / 1e6,
                rowsOnFirstPage: plan.kind == .list ? rows[plan.name] ?? 0 : 0, kind: plan.kind)
        }
    }
}
