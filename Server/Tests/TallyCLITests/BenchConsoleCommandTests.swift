import Foundation
import Testing

/// `tally bench console` on a tiny database: it fills subscriptions beside the ledger, rebuilds
/// the rollups to match, and asks for every console page. No figure is checked: speed is
/// measured by the benchmark, not tests.
@Suite(.serialized) struct BenchConsoleCommandTests {
    static let tiny = ["--entries", "300", "--transactions", "30", "--subscriptions", "300", "--users", "20", "--requests", "1", "--rounds", "1"]

    @Test func aShortRunFillsSubscriptionsWhoseRollupsMatchAndTimesEveryPage() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("bench-console-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        }
        let run = try await CommandLine.run(["bench", "console"] + Self.tiny + ["--database", database, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = CommandLine.json(run.stdout)
        #expect(report["subscriptions"] as? Int == 300)
        // Every subscription has a period, and some have several (trials, renewals).
        #expect((report["subscription_periods"] as? Int ?? 0) > 300, "\(report)")
        #expect((report["rebuild_seconds"] as? Double ?? -1) >= 0)
        let cases = report["cases"] as? [[String: Any]] ?? []
        let pages = cases.filter { $0["kind"] as? String == "page" }.compactMap { $0["path"] as? String }
        #expect(pages.filter { $0.hasPrefix("/console?window=") }.count == 2, "\(pages)")
        #expect(pages.filter { $0.hasPrefix("/console/metrics") }.count == 4, "\(pages)")
        #expect(pages.contains("/console/metrics?window=365d"))
        #expect(cases.contains { $0["kind"] as? String == "api" && ($0["path"] as? String)?.hasPrefix("/v1/admin/metrics?") == true })
        #expect(cases.allSatisfy { $0["requests"] as? Int == 1 }, "\(cases)")

        // The rollups the benchmark rebuilt are the ones `tally check` recomputes from its rows.
        let check = CommandLine.json(try await CommandLine.run(["check", "--database", database]).stdout)
        let audit = check["audit"] as? [String: Any] ?? [:]
        #expect(audit["rollup_difference_count"] as? Int == 0, "\(audit["rollup_differences"] ?? check)")
    }

    @Test func theGoalLineCountsThePagesAndNotTheBaselines() async throws {
        let run = try await CommandLine.run(["bench", "console"] + Self.tiny + ["--case", "metrics, 365"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("metrics, 365 days") && !$0.contains("not counted") }, "\(run.stdout)")
        #expect(lines.contains { $0.contains("baseline: GET /healthz") && $0.contains("not counted") }, "\(run.stdout)")
        #expect(!lines.contains { $0.contains("ledger,") }, "only the cases asked for, and the baselines: \(run.stdout)")
        #expect(lines.last?.hasPrefix("slowest page p99") == true && lines.last?.contains("(metrics, 365 days)") == true, "\(run.stdout)")
    }

    @Test func fewerThanNinetyDaysIsAUsageError() async throws {
        let run = try await CommandLine.run(["bench", "console", "--days", "30"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--days 90 to 730"), "\(run.stderr)")
    }
}
