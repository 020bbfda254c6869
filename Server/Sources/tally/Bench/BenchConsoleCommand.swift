import ArgumentParser
import Foundation
import TallyBenchmarks
import TallyServer

/// `tally bench console`: the web console's filtered lists on a large database.
struct BenchConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Time the web console's filtered list pages on a database of a million ledger entries.",
        discussion: """
            Fills a database (a new temporary SQLite file, or --database postgres://… of a throwaway database) with
            --entries ledger entries and --transactions store transactions spread over 90 days, for --users users, then
            runs the server in this process on loopback and asks for filtered pages of the ledger and of the
            transactions as one operator's browser does: one connection, one request at a time, each timed from the
            request sent to the whole HTML page received. Baselines in the same rounds: GET /healthz and the products
            page (rendered, no database). Goal: every list's p99 under 50 ms.
            """)

    @Option(help: "Ledger entries to fill.")
    var entries = 1_000_000

    @Option(help: "Store transactions to fill.")
    var transactions = 100_000

    @Option(help: "Users the rows belong to.")
    var users = 10_000

    @Option(help: "Measured requests per case and per round.")
    var requests = 100

    @Option(help: "Rounds; in each, every case takes its turn.")
    var rounds = 3

    @Option(help: "A postgres:// URL of a throwaway database (default: a new temporary SQLite file).")
    var database: String?

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard (1...50_000_000).contains(entries), (1...10_000_000).contains(transactions), (1...1_000_000).contains(users) else {
            throw ValidationError("--entries 1 to 50000000, --transactions 1 to 10000000, --users 1 to 1000000")
        }
        guard requests > 0, rounds > 0 else { throw ValidationError("--requests and --rounds must be positive") }
    }

    func run() async throws {
        let options = ConsoleBenchmark.Options(
            catalogURL: URL(fileURLWithPath: config), database: database.map(ServerConfiguration.Database.init),
            entries: entries, transactions: transactions, users: users, requests: requests, rounds: rounds)
        let quiet = json
        let result = try await ConsoleBenchmark.run(options) { line in
            if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        try BenchReport.print(result, json: json, table: Self.table)
    }

    static func table(_ result: ConsoleBenchmark.Result) -> String {
        var lines = [
            "machine: \(MachineInfo.summary)",
            "\(result.database): \(result.entries) ledger entries, \(result.transactions) store transactions, \(result.users) users "
                + String(format: "(filled in %.1f s)", result.fillSeconds),
        ]
        let slowest = result.cases.filter(\.list).map(\.p99Milliseconds).max() ?? 0
        for item in result.cases {
            lines.append(
                String(
                    format: "  %@ p50 %7.2f ms   p99 %7.2f ms   max %7.2f ms   %@", item.name.padding(toLength: 44, withPad: " ", startingAt: 0),
                    item.p50Milliseconds, item.p99Milliseconds, item.maximumMilliseconds,
                    item.list ? "\(item.rowsOnFirstPage) rows" : ""))
        }
        lines.append(
            String(
                format: "slowest list p99 %.2f ms: goal < %.0f ms %@", slowest, result.goalMilliseconds, slowest < result.goalMilliseconds ? "met" : "MISSED"))
        return lines.joined(separator: "\n")
    }
}
