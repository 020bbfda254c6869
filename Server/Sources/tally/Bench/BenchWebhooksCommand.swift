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
            process with its worker (--concurrency requests in flight) and the time until a receiver on loopback has
            every event id is taken. Baseline, in the same round: as many plain POSTs of a delivery's body to the same
            receiver from the same HTTP client, --concurrency at once, with no database and no signature.

            With --slow-percent P, the receiver answers P % of requests a second after the worker's --timeout, and
            the events are committed at --rate a second while the worker runs: the figures are each event's delay
            from its commit to its first arrival at the receiver (median, p99, max); no baseline.
            """)

    @Option(help: "Events per round.")
    var events = 5_000

    @Option(help: "Requests in flight at once to the endpoint (the worker's, and the baseline's).")
    var concurrency = 32

    @Option(help: "Percent of answers that come after the timeout (0: none; a slow-receiver run).")
    var slowPercent: Double = 0

    @Option(help: "With --slow-percent: events committed a second while the worker runs.")
    var rate: Double = 50

    @Option(help: "The worker's timeout, in seconds.")
    var timeout: Double = 15

    @Option(help: "Rounds.")
    var rounds = 3

    @Option(help: "A postgres:// URL of a throwaway database (default: a new temporary SQLite file).")
    var database: String?

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard (1...1_000_000).contains(events), (1...256).contains(concurrency), (1...20).contains(rounds) else {
            throw ValidationError("--events 1 to 1000000, --concurrency 1 to 256, --rounds 1 to 20")
        }
        guard (0...50).contains(slowPercent), rate > 0, rate <= 10_000, timeout >= 0.1, timeout <= 300 else {
            throw ValidationError("--slow-percent 0 to 50, --rate above 0 and at most 10000, --timeout 0.1 to 300")
        }
    }

    func run() async throws {
        let options = WebhookBenchmark.Options(
            catalogURL: URL(fileURLWithPath: config), database: database.map(ServerConfiguration.Database.init), events: events,
            concurrency: concurrency, rounds: rounds)
        var configured = options
        configured.slowPercent = slowPercent
        configured.rate = rate
        configured.timeout = timeout
        let run = configured
        let quiet = json
        let result = try await WebhookBenchmark.run(run) { line in
            if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        try BenchReport.print(result, json: json, table: Self.table)
    }

    static func table(_ result: WebhookBenchmark.Result) -> String {
        var lines = [
            "machine: \(MachineInfo.summary)",
            "\(result.database) (\(result.durability)): \(result.events) events a round, \(result.concurrency) in flight, body \(result.bodyBytes) bytes",
        ]
        if let rate = result.rate {
            lines.append(
                String(
                    format: "receiver: %.1f %% of answers %.0f s after the %.0f s timeout; events at %.0f a second", result.slowPercent, 1.0, result.timeout,
                    rate))
            for (index, round) in result.rounds.enumerated() {
                lines.append(
                    String(
                        format:
                            "  round %d: delay from commit to receiver: median %.3f s, p99 %.3f s, max %.3f s; %.0f deliveries/s; %d late answers, %d repeats",
                        index + 1, round.medianDelay ?? 0, round.p99Delay ?? 0, round.maxDelay ?? 0, round.deliveredPerSecond, round.slowAnswers ?? 0,
                        round.repeats))
            }
            return lines.joined(separator: "\n")
        }
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
