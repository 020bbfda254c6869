import Foundation
import Testing

/// `tally bench server` as a user runs it, on a tiny workload: it starts its own server, drives
/// every endpoint, stops by itself, and reports what it measured. No figure is checked: speed
/// is measured by the benchmark, never by tests.
@Suite(.serialized) struct BenchServerCommandTests {
    @Test func aShortRunReportsEveryEndpointAndTheDurableSetting() async throws {
        let run = try await CommandLine.run([
            "bench", "server", "--duration", "0.4", "--rounds", "2", "--warm-up", "0", "--users", "8", "--purchases", "40",
            "--connections", "2", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let report = CommandLine.json(run.stdout)
        #expect((report["durability"] as? String)?.contains("synchronous=FULL") == true, "\(run.stdout)")
        let endpoints = report["endpoints"] as? [[String: Any]] ?? []
        #expect(
            endpoints.compactMap { $0["endpoint"] as? String }
                == ["GET /healthz", "POST /v1/me/purchases", "POST /v1/me/spend", "GET /v1/me", "GET /v1/me signed"])
        for endpoint in endpoints {
            #expect((endpoint["requests"] as? Int ?? 0) > 0, "\(endpoint)")
            #expect((endpoint["round_rates"] as? [Double])?.count == 2, "\(endpoint)")
        }
        #expect((endpoints.first?["ratio_to_health"] as? Double) == 1)
        // The disk's baseline, measured in each round beside the phases.
        #expect((report["durable_write_p50_milliseconds"] as? Double ?? 0) > 0, "\(run.stdout)")
        #expect((report["round_durable_write_p50_milliseconds"] as? [Double])?.count == 2)
    }

    /// Every endpoint the help names can be measured alone, beside `/healthz`.
    @Test func signedAnswersCanBeMeasuredAlone() async throws {
        let run = try await CommandLine.run([
            "bench", "server", "--only", "signed-me", "--duration", "0.2", "--rounds", "1", "--warm-up", "0", "--users", "4",
            "--purchases", "4", "--connections", "1", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let endpoints = CommandLine.json(run.stdout)["endpoints"] as? [[String: Any]] ?? []
        #expect(endpoints.compactMap { $0["endpoint"] as? String } == ["GET /healthz", "GET /v1/me signed"], "\(run.stdout)")
    }

    @Test func anUnknownEndpointIsAUsageError() async throws {
        let run = try await CommandLine.run(["bench", "server", "--only", "refunds"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--only"))
    }
}
