import ArgumentParser
import Foundation
import TallyBenchmarks
import TallyTesting

/// `tally bench verify`: verification throughput on one core, with its baselines.
struct BenchVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify N distinct fresh JWS and app receipts on one core, cached and uncached, against raw signature baselines.",
        discussion: """
            Baselines measured in the same run: swift-crypto's raw P-256 verification of the same
            signatures, `openssl speed ecdsap256` when openssl is installed, and, with --python, Apple's
            app-store-server-library verifying the same JWS (scripts/bench_python_verify.py).
            App receipts (--receipts, RSA-2048 and SHA-256 as the App Store signs them) are measured
            against swift-crypto's raw RSA verification of the same signatures over the same content.
            """)

    @Option(help: "How many distinct JWS to verify.")
    var count = 20_000

    @Option(help: "How many of them the uncached run verifies.")
    var uncachedCount = 2_000

    @Flag(inversion: .prefixedNo, help: "Run `openssl speed ecdsap256` as a baseline.")
    var openssl = true

    @Flag(help: "Also verify the same JWS with Apple's Python library (pip install app-store-server-library).")
    var python = false

    @Option(help: "How many JWS the Python run verifies.")
    var pythonCount = 2_000

    @Option(help: "How many distinct app receipts to verify; 0 skips receipts.")
    var receipts = 2_000

    @Option(help: "Write the JWS (one per line) and the root (root.der) to this folder.")
    var emit: String?

    func validate() throws {
        guard count > 0, uncachedCount > 0, pythonCount > 0, receipts >= 0 else { throw ValidationError("counts must be positive (--receipts may be 0)") }
    }

    func run() async throws {
        let now = Date()
        print("minting \(count) signed transactions…")
        let workload = try VerifyBenchmark.workload(count: count, now: now)
        let result = try await VerifyBenchmark.run(workload, uncachedCount: uncachedCount, now: { now })

        var lines = [
            "machine: \(MachineInfo.summary)",
            String(format: "raw P-256 verify (swift-crypto, same signatures): %10.0f /s", result.rawVerifyRate),
            String(
                format: "tally verify, chain cached (%d JWS):           %10.0f /s  (%.0f%% of raw, median of rounds)",
                result.count, result.cachedRate, 100 * result.cachedToRawMedian),
            String(
                format: "tally verify, chain uncached (%d JWS):          %10.0f /s",
                result.uncachedCount, result.uncachedRate),
        ]
        if openssl, let rate = OpenSSLSpeed.verifyRate() {
            lines.append(
                String(
                    format: "openssl speed ecdsap256 verify:                  %10.0f /s  (tally cached = %.0f%%)",
                    rate, 100 * result.cachedRate / rate))
        }
        let folder =
            emit.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("tally-bench-\(ProcessInfo.processInfo.processIdentifier)")
        if python || emit != nil {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(workload.authority.rootDER).write(to: folder.appendingPathComponent("root.der"))
            try Data((workload.jws.prefix(python ? pythonCount : count).joined(separator: "\n") + "\n").utf8)
                .write(to: folder.appendingPathComponent("jws.txt"))
        }
        if python {
            switch PythonBaseline.verifyRate(folder: folder) {
            case .success(let rate):
                lines.append(
                    String(
                        format: "Apple app-store-server-library (Python, %d JWS): %10.0f /s  (tally cached = %.1fx)",
                        min(pythonCount, count), rate, result.cachedRate / rate))
            case .failure(let message):
                lines.append("Apple app-store-server-library (Python): not measured: \(message)")
            }
        }
        if receipts > 0 {
            print("minting \(receipts) app receipts…")
            let workload = try ReceiptVerifyBenchmark.workload(count: receipts, now: now)
            let result = try await ReceiptVerifyBenchmark.run(workload, uncachedCount: uncachedCount, now: { now })
            let rates = result.rates
            lines += [
                String(format: "raw RSA-2048 verify (swift-crypto, same signatures): %7.0f /s", rates.rawVerifyRate),
                String(
                    format: "tally receipts, chain cached (%d, ~%d B each):   %8.0f /s  (%.0f%% of raw, median of rounds)",
                    rates.count, result.meanSize, rates.cachedRate, 100 * rates.cachedToRawMedian),
                String(format: "tally receipts, chain uncached (%d):              %10.0f /s", rates.uncachedCount, rates.uncachedRate),
            ]
        }
        print(lines.joined(separator: "\n"))
    }
}
