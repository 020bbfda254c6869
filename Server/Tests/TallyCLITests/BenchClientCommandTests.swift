import Foundation
import Testing

/// `tally bench client` as a user runs it, on a tiny workload: both modes buy through TallyKit,
/// the server mode against its own in-process server, and the report has every figure. No
/// figure is checked against a speed: speed is measured by the benchmark, never by tests.
@Suite(.serialized) struct BenchClientCommandTests {
    @Test func aShortRunReportsBothModesWithEveryPurchaseCredited() async throws {
        let run = try await CommandLine.run([
            "bench", "client", "--purchases", "6", "--warm-up", "1", "--rounds", "2", "--baseline-samples", "2", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let report = CommandLine.json(run.stdout)
        #expect(report["target_p99_milliseconds"] as? Double == 50, "\(run.stdout)")
        #expect(report["seed_limit_milliseconds"] as? Double == 1_000)
        #expect((report["machine"] as? String)?.isEmpty == false)
        let modes = report["modes"] as? [[String: Any]] ?? []
        #expect(modes.compactMap { $0["mode"] as? String } == ["on-device", "server"], "\(run.stdout)")
        for mode in modes {
            #expect(mode["purchases"] as? Int == 6, "\(mode)")
            #expect(mode["warm_up"] as? Int == 1)
            #expect((mode["round_p50_milliseconds"] as? [Double])?.count == 2)
            // Every purchase was credited, warm-up included: the fresh fetch at the end shows them all.
            let grant = mode["grant_per_purchase"] as? Int ?? 0
            #expect(grant > 0)
            #expect(mode["final_balance"] as? Int == mode["expected_balance"] as? Int)
            for name in ["paid_to_usable", "paid_to_returned", "purchase_call", "durable_write"] {
                let latency = mode[name] as? [String: Any] ?? [:]
                let p50 = latency["p50_milliseconds"] as? Double ?? -1
                let p99 = latency["p99_milliseconds"] as? Double ?? -1
                let max = latency["max_milliseconds"] as? Double ?? -1
                #expect(p50 > 0 && p50 <= p99 && p99 <= max, "\(name): \(latency)")
            }
            // The window is inside the purchase call.
            let usable = mode["paid_to_returned"] as? [String: Any] ?? [:]
            let call = mode["purchase_call"] as? [String: Any] ?? [:]
            #expect((usable["max_milliseconds"] as? Double ?? .infinity) <= (call["max_milliseconds"] as? Double ?? 0))
        }
        #expect(modes.first?["server"] == nil)
        #expect((modes.last?["server"] as? String)?.contains("synchronous=FULL") == true, "\(run.stdout)")
        #expect((modes.last?["health_round_trip"] as? [String: Any])?["samples"] as? Int == 4)
        #expect(modes.last?["final_balance"] as? Int == 2 + 7 * 10, "two free credits on sign-up, then 7 purchases of 10")
    }

    @Test func anUnknownModeIsAUsageError() async throws {
        let run = try await CommandLine.run(["bench", "client", "--mode", "cloud"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--mode"))
    }
}
