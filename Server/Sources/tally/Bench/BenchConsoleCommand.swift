import ArgumentParser
import Foundation
import TallyBenchmarks
import TallyServer

/// `tally bench console`: the web console's pages (overview, metrics, filtered lists) on a large database.
struct BenchConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Time the web console's pages on a database of a million ledger entries and 100,000 subscriptions.",
        discussion: """
            Fills a database (a new temporary SQLite file, or --database postgres://… of a throwaway database) with
            --entries ledger entries, --transactions one-off store transactions and --subscriptions auto-renewable
            subscriptions (trials, renewals, refunds) spread over --days days, for --users users, rebuilds the metrics
            rollups from them, then runs the server in this process on loopback and asks for the overview, the metrics
            page and filtered pages of the ledger and of the transactions as one operator's browser does: one
            connection, one request at a time, each timed from the request sent to the whole page received. Baselines
            in the same rounds: GET /healthz and the products page (rendered, no database); GET /v1/admin/metrics
            (secret key) is timed beside them. Goal: every console page's p99 under 50 ms.
            """)

    @Option(help: "Ledger entries to fill.")
    var entries = 1_000_000

    @Option(help: "One-off store transactions to fill (every product but the auto-renewable ones).")
    var transactions = 100_000

    @Option(help: "Auto-renewable subscriptions to fill, each with its periods (trials, renewals).")
    var subscriptions = 100_000

    @Option(help: "Days before now the rows spread over.")
    var days = 90

    @Option(help: "Users the rows belong to.")
    var users = 10_000

    @Option(help: "Measured requests per case and per round.")
    var requests = 100

    @Option(help: "Rounds; in each, every case takes its turn.")
    var rounds = 3

    @Option(name: .customLong("case"), help: "Only the cases whose name contains this (repeatable; the baselines always run).")
    var cases: [String] = []

    @Option(help: "A postgres:// URL of a throwaway database (default: a new temporary SQLite file).")
    var database: String?

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard (1...50_000_000).contains(entries), (1...10_000_000).contains(transactions), (0...10_000_000).contains(subscriptions),
            (1...1_000_000).contains(users), (90...730).contains(days)
        else {
            throw ValidationError(
                "--entries 1 to 50000000, --transactions 1 to 10000000, --subscriptions 0 to 10000000, --users 1 to 1000000, --days 90 to 730")
        }
        guard requests > 0, rounds > 0 else { throw ValidationError("--requests and --rounds must be positive") }
    }

    func run() async throws {
        let options = ConsoleBenchmark.Options(
            catalogURL: URL(fileURLWithPath: config), database: database.map(ServerConfiguration.Database.init),
            entries: entries, transactions: transactions, subscriptions: subscriptions, users: users, days: days, requests: requests,
            rounds: rounds, only: cases)
        let quiet = json
        let result = try await ConsoleBenchmark.run(options) { line in
            if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        try BenchReport.print(result, json: json, table: Self.table)
    }

    static func table(_ result: ConsoleBenchmark.Result) -> String {
        var lines = [
            "machine: \(MachineInfo.summary)",
            "\(result.database): \(result.entries) ledger entries, \(result.transactions) one-off store transactions, "
                + "\(result.subscriptions) subscriptions (\(result.subscriptionPeriods) periods), \(result.users) users over \(result.days) days",
            String(format: "filled in %.1f s, metrics rollups rebuilt in %.1f s", result.fillSeconds, result.rebuildSeconds),
        ]
        let counted = result.cases.filter(\.counts)
        let slowest = counted.max { $0.p99Milliseconds < $1.p99Milliseconds }
        for item in result.cases {
            lines.append(
                String(
                    format: "  %@ p50 %7.2f ms   p99 %7.2f ms   max %7.2f ms   %@", item.name.padding(toLength: 44, withPad: " ", startingAt: 0),
                    item.p50Milliseconds, item.p99Milliseconds, item.maximumMilliseconds,
                    item.kind == .list ? "\(item.rowsOnFirstPage) rows" : item.counts ? "" : "(not counted)"))
        }
        let missed = counted.filter { $0.p99Milliseconds >= result.goalMilliseconds }.map(\.name)
        lines.append(
            String(
                format: "slowest page p99 %.2f ms (%@): goal < %.0f ms %@", slowest?.p99Milliseconds ?? 0, slowest?.name ?? "none",
                result.goalMilliseconds, missed.isEmpty ? "met" : "MISSED by " + missed.joined(separator: ", ")))
        return lines.joined(separator: "\n")
    }
}
