import ArgumentParser
import Foundation
import TallyBenchmarks
import TallyCore
import TallyServer

/// `tally bench server`: the purchase server's throughput and latency over loopback.
struct BenchServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Run the server in this process and drive it over loopback: purchases, spends and GET /v1/me.",
        discussion: """
            The server is built as `tally serve --dev` builds it (the same buildApplication), on 127.0.0.1 and a free port, with durable
            commits as in production, and trusts a test root minted for the run. Concurrent keep-alive
            connections send requests back to back (closed loop). Each round measures GET /healthz (the
            baseline), purchases (each a distinct signed transaction, verified and granted), spends (distinct
            idempotency keys) and GET /v1/me; every rate is also given as the median over rounds of its ratio
            to the same round's /healthz rate. Rate limits are raised for this server only.
            """)

    @Option(help: "An SQLite file path (default: a new temporary file, deleted afterwards), or a postgres:// URL of a throwaway database.")
    var database: String?

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Option(help: "Concurrent keep-alive connections.")
    var connections = 16

    @Option(help: "Seconds each endpoint is measured, split over the rounds.")
    var duration: Double = 10

    @Option(help: "Alternating rounds of the four endpoints.")
    var rounds = 5

    @Option(help: "Seconds each endpoint is exercised before measuring.")
    var warmUp: Double = 1

    @Option(help: "Users the requests are spread over.")
    var users = 1_000

    @Option(help: "Distinct signed transactions minted for the measured purchases; purchase phases end early when they run out.")
    var purchases = 40_000

    @Option(
        name: .customLong("only"), parsing: .upToNextOption,
        help: "Measure only these endpoints besides /healthz: purchase, spend, me, signed-me (for profiling one of them).")
    var only: [String] = []

    @Flag(
        help: """
            Also measure a backend written without Tally (scripts/baseline: Flask, SQLite and Apple's app-store-server-library under \
            gunicorn, installed into .build-test/baseline-venv on first use) with the same phases, after Tally's in each round, and \
            give Tally's rates as multiples of it.
            """)
    var selfWritten = false

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard connections > 0, connections <= 1_024 else { throw ValidationError("--connections must be 1 to 1024") }
        guard duration > 0, duration <= 3_600, warmUp >= 0, warmUp <= 600 else {
            throw ValidationError("--duration must be above 0 and at most 3600, --warm-up 0 to 600")
        }
        for name in only where Self.endpoint(name) == nil {
            throw ValidationError("--only takes purchase, spend, me or signed-me, not \(name)")
        }
        guard rounds > 0, users > 0, purchases >= rounds else { throw ValidationError("--rounds, --users must be positive, --purchases at least --rounds") }
    }

    func run() async throws {
        let catalog: TallyCatalog
        do {
            catalog = try TallyCatalog.load(contentsOf: URL(fileURLWithPath: config))
        } catch {
            throw ValidationError("--config \(config): \(error)")
        }
        let target: ServerConfiguration.Database
        var temporary: String?
        if let database {
            target = ServerConfiguration.Database(database)
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("tally-bench-\(UUID().uuidString).sqlite").path
            temporary = path
            target = .sqlite(path: path)
        }
        defer {
            if let temporary {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
            }
        }

        let options = ServerBenchmark.Options(
            database: target, catalog: catalog, connections: connections, duration: .milliseconds(Int64(duration * 1_000)),
            rounds: rounds, warmUp: .milliseconds(Int64(warmUp * 1_000)), users: users, purchases: purchases,
            endpoints: only.isEmpty ? Set(ServerBenchmark.Endpoint.allCases) : Set(only.compactMap(Self.endpoint)),
            selfWritten: selfWritten ? SelfWrittenBaseline.backend(catalog: config) : nil)
        let quiet = json
        // PostgreSQL's own rates on the same server, before and after the rounds.
        var pgbench: [ServerBenchmark.PgbenchFigures] = []
        func runPgbench() {
            guard case .postgres(let url) = target else { return }
            if !quiet { print("pgbench: select-only and TPC-B-like, \(connections) clients, \(Self.pgbenchSeconds) s each…") }
            switch PgbenchBaseline.run(url: url, clients: connections, seconds: Self.pgbenchSeconds) {
            case .success(let figures): pgbench.append(figures)
            case .failure(let error): if !quiet { print("pgbench: not measured: \(error)") }
            }
        }
        runPgbench()
        var result = try await ServerBenchmark.run(options) { line in
            if !quiet { print(line) }
        }
        runPgbench()
        result.pgbench = pgbench
        try BenchReport.print(result, json: json, table: Self.table)
    }

    /// Seconds each pgbench script runs.
    static let pgbenchSeconds = 10

    static func endpoint(_ name: String) -> ServerBenchmark.Endpoint? {
        switch name {
        case "purchase": .purchase
        case "spend": .spend
        case "me": .me
        case "signed-me": .signedMe
        default: nil
        }
    }

    static func table(_ result: ServerBenchmark.Result) -> String {
        var lines = [
            "machine: \(MachineInfo.summary)",
            "database: \(result.database), \(result.durability)",
            "\(result.connections) connections, \(result.users) users, \(result.rounds) rounds; rate limits raised to \(result.rateLimitPerMinute)/min for this server",
            "",
            "endpoint                 requests  seconds      req/s   p50 ms   p99 ms  ÷ healthz  stmts  target",
        ]
        for endpoint in result.endpoints {
            var verdict = ""
            if let target = endpoint.targetRate {
                let met = endpoint.rate >= target && endpoint.p99Milliseconds < result.p99TargetMilliseconds
                verdict = String(format: "≥ %.0f/s, p99 < %.0f ms: %@", target, result.p99TargetMilliseconds, met ? "met" : "MISSED")
            }
            lines.append(
                String(
                    format: "%@ %10d %8.2f %10.0f %8.2f %8.2f %9.3f %@  %@",
                    endpoint.endpoint.padding(toLength: 22, withPad: " ", startingAt: 0), endpoint.requests, endpoint.seconds, endpoint.rate,
                    endpoint.p50Milliseconds,
                    endpoint.p99Milliseconds, endpoint.ratioToHealth,
                    (endpoint.statementsPerRequest.map { String(format: "%.1f", $0) } ?? "-").leftPadded(to: 6), verdict))
        }
        lines.append(
            String(
                format: "baseline: write + fsync of 4 KB in the temporary folder: p50 %.2f ms, p99 %.2f ms; p50 by round %@ ms",
                result.durableWriteP50Milliseconds, result.durableWriteP99Milliseconds,
                result.roundDurableWriteP50Milliseconds.map { String(format: "%.2f", $0) }.joined(separator: "/")))
        if !result.pgbench.isEmpty {
            let selectOnly = result.pgbench.map(\.selectOnly).reduce(0, +) / Double(result.pgbench.count)
            let tpcb = result.pgbench.map(\.tpcbLike).reduce(0, +) / Double(result.pgbench.count)
            let first = result.pgbench[0]
            lines.append(
                String(
                    format: "baseline: pgbench on the same server (scale %d, %d clients, %d s each; before/after): select-only %@ tps, TPC-B-like %@ tps",
                    first.scale, first.clients, first.seconds,
                    result.pgbench.map { String(format: "%.0f", $0.selectOnly) }.joined(separator: "/"),
                    result.pgbench.map { String(format: "%.0f", $0.tpcbLike) }.joined(separator: "/")))
            for endpoint in result.endpoints {
                let goal: (share: Double, of: Double, name: String)
                switch endpoint.endpoint {
                case ServerBenchmark.Endpoint.me.rawValue: goal = (0.25, selectOnly, "select-only")
                case ServerBenchmark.Endpoint.purchase.rawValue, ServerBenchmark.Endpoint.spend.rawValue: goal = (0.5, tpcb, "TPC-B-like")
                default: continue
                }
                lines.append(
                    String(
                        format: "  %@ %.0f/s = %.2f of pgbench's %@ (goal ≥ %.2f): %@", endpoint.endpoint, endpoint.rate, endpoint.rate / goal.of,
                        goal.name, goal.share, endpoint.rate / goal.of >= goal.share ? "met" : "MISSED"))
            }
        }
        if let other = result.selfWritten {
            lines.append("self-written backend, the same phases after Tally's in each round: \(other.name)")
            for endpoint in other.endpoints {
                var comparison = ""
                if let tally = result.endpoints.first(where: { $0.endpoint == endpoint.endpoint }), let multiple = other.multiple(of: tally) {
                    comparison = String(format: "Tally ×%.1f", multiple)
                    if let goal = ServerBenchmark.SelfWrittenResult.goal(endpoint.endpoint) {
                        comparison += String(format: " (goal ≥ ×%.0f): %@", goal, multiple >= goal ? "met" : "MISSED")
                    }
                }
                lines.append(
                    String(
                        format: "  %@ %10.0f/s  p50 %6.2f ms  p99 %6.2f ms  %@", endpoint.endpoint.padding(toLength: 22, withPad: " ", startingAt: 0),
                        endpoint.rate, endpoint.p50Milliseconds, endpoint.p99Milliseconds, comparison))
            }
        }
        func byRound(_ endpoints: [ServerBenchmark.EndpointResult]) -> String {
            endpoints.map { endpoint in
                "\(endpoint.endpoint) " + endpoint.roundRates.map { String(format: "%.0f", $0) }.joined(separator: "/")
            }.joined(separator: "; ")
        }
        lines.append("")
        lines.append("rates by round: " + byRound(result.endpoints))
        if let other = result.selfWritten { lines.append("self-written backend's rates by round: " + byRound(other.endpoints)) }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The text with spaces before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
