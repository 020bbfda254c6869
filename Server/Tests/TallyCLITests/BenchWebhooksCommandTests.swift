import Foundation
import Testing

/// `tally bench webhooks` on a tiny workload: it queues, delivers to its own receiver and
/// reports both rates. No figure is checked: speed is measured by the benchmark, not tests.
@Suite(.serialized) struct BenchWebhooksCommandTests {
    @Test func aShortRunDeliversEveryEventOnceAndReportsTheBaseline() throws {
        let run = try CommandLine.run(["bench", "webhooks", "--events", "40", "--rounds", "2", "--batch", "4", "--json"])
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

    @Test func aBatchOutOfRangeIsAUsageError() throws {
        let run = try CommandLine.run(["bench", "webhooks", "--batch", "0"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--batch"))
    }
}
