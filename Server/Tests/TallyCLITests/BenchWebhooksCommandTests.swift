import Foundation
import Testing

/// `tally bench webhooks` on a tiny workload: it queues, delivers to its own receiver and
/// reports both rates. No figure is checked: speed is measured by the benchmark, not tests.
@Suite(.serialized) struct BenchWebhooksCommandTests {
    @Test func aShortRunDeliversEveryEventOnceAndReportsTheBaseline() async throws {
        let run = try await CommandLine.run(["bench", "webhooks", "--events", "40", "--rounds", "2", "--concurrency", "4", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = CommandLine.json(run.stdout)
        #expect((report["durability"] as? String)?.contains("synchronous=FULL") == true, "\(run.stdout)")
        let rounds = report["rounds"] as? [[String: Any]] ?? []
        #expect(rounds.count == 2)
        for round in rounds {
            #expect((round["delivered_per_second"] as? Double ?? 0) > 0, "\(round)")
            #expect((round["baseline_per_second"] as? Double ?? 0) > 0, "\(round)")
            #expect(round["repeats"] as? Int == 0, "\(round)")
        }
        #expect((report["body_bytes"] as? Int ?? 0) > 100)
    }

    @Test func aConcurrencyOutOfRangeIsAUsageError() async throws {
        let run = try await CommandLine.run(["bench", "webhooks", "--concurrency", "0"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--concurrency 1 to 256"), "\(run.stderr)")
    }

    @Test func aSlowReceiverRunReportsTheDelayFromCommitToReceiver() async throws {
        let run = try await CommandLine.run([
            "bench", "webhooks", "--events", "20", "--rounds", "1", "--slow-percent", "10", "--rate", "40", "--timeout", "0.5", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let rounds = CommandLine.json(run.stdout)["rounds"] as? [[String: Any]] ?? []
        #expect(rounds.count == 1)
        for round in rounds {
            let median = round["median_delay"] as? Double ?? -1
            let p99 = round["p99_delay"] as? Double ?? -1
            #expect(median >= 0 && p99 >= median, "\(round)")
            #expect((round["slow_answers"] as? Int ?? 0) > 0, "\(round)")
        }
    }
}
