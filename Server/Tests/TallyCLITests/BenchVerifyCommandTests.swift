import Foundation
import Testing

/// `tally bench verify` as a user runs it, on a tiny workload: every JWS and receipt it mints
/// verifies (a failure stops it with an error), and it reports each rate. No figure is
/// checked: speed is measured by the benchmark, never by tests.
@Suite(.serialized) struct BenchVerifyCommandTests {
    @Test func aShortRunReportsJWSAndReceiptRates() async throws {
        let run = try await CommandLine.run(["bench", "verify", "--count", "20", "--uncached-count", "5", "--receipts", "10", "--no-openssl"])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        for label in [
            "raw P-256 verify", "tally verify, chain cached (20 JWS)", "raw RSA-2048 verify",
            "tally receipts, chain cached (10,", "tally receipts, chain uncached (5)",
        ] {
            let line = lines.first { $0.hasPrefix(label) }
            #expect(line?.contains("/s") == true, "\(label): \(run.stdout)")
        }
    }

    @Test func receiptsCanBeLeftOut() async throws {
        let run = try await CommandLine.run(["bench", "verify", "--count", "5", "--uncached-count", "2", "--receipts", "0", "--no-openssl"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("receipts"), "\(run.stdout)")
    }
}
