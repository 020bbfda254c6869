import ArgumentParser
import Foundation
import TallyBenchmarks
import TallyServer

/// `tally bench webhooks`: how fast the delivery worker empties the outbox.
struct BenchWebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Time webhook delivery: events queued for one endpoint, delivered to a receiver on loopback.",
        discussion: """
            In each round, --events sign-up events are queued for a new endpoint while no delivery worker runs (a new
            temporary SQLite file, or --database postgres://… of a throwaway database); then the server starts in this
            process with its worker (--batch deliveries at once) and the time until a receiver on loopback has every
            event id is taken. Baseline, in the same round: as many plain POSTs of a delivery's body to the same
            receiver from the same HTTP client, --batch at once, with no database and no signature.
            """)

    @Option(help: "Events per round.")
    var events = 5_000

    @Option(help: "Deliveries claimed and sent at once.")
    var batch = 32

    @Option(help: "Rounds.")
    var rounds = 3

    @Option(help: "A postgres:// URL of a throwaway database (default: a new temporary SQLite file).")
    var database: String?

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard (1...1_000_000).contains(events), (1...256).contains(batch), (1...20).contains(rounds) else {
            throw ValidationError("--events 1 to 1000000, --batch 1 to 256, --rounds 1 to 20")
        }
    }

    func run() async throws {
        let options = WebhookBenchmark.Options(
            catalogURL: URL(fileURLWithPath: config), database: database.map(ServerConfiguration.Database.init), events: events, batch: batch,
            rounds: rounds)
        let quiet = json
        let result = try await WebhookBenchmark.run(options) { line in
            if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        try BenchReport.print(result, json: json, table: Self.table)
    }

    static func table(_ result: WebhookBenchmark.Result) -> String {
        var lines = [
            "machine: \(MachineInfo.summary)",
            "\(result.database) (\(result.durability)): \(result.events) events a round, batch \(result.batch), body \(result.bodyBytes) bytes",
        ]
        for (index, round) in result.rounds.enumerated() {
            lines.append(
                String(
                    format: "  round %d: %8.0f deliveries/s   baseline %8.0f POSTs/s   %.2f×   %d repeats", index + 1, round.deliveredPerSecond,
                    round.baselinePerSecond, round.deliveredPerSecond / round.baselinePerSecond, round.repeats))
        }
        lines.append(
            String(
                format: "median: %.0f deliveries/s (baseline %.0f POSTs/s); ÷ baseline, the median over rounds: %.2f×",
                result.medianDeliveredPerSecond, result.medianBaselinePerSecond, result.medianRatio))
        return lines.joined(separator: "\n")
    }
}
