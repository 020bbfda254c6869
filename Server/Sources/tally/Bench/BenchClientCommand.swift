import ArgumentParser
import Foundation
import TallyBenchmarks
import TallyServer

/// `tally bench client`: from the store's signed transaction to a usable credit, on the device
/// and against a server.
struct BenchClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Time from the store's transaction to a usable credit, on the device and against a local server.",
        discussion: """
            TallyKit's PurchaseManager buys one product after another from the simulated App Store (real
            signed transactions from a test root minted for the run, trusted explicitly). The time runs from
            the manager's `.paid` checkpoint, right after the store returned the transaction, until the
            purchase call has returned `.purchased` and `account()` shows the new balance. On the device the
            credit goes to OnDeviceLedger in a SQLite file; against the server, ServerDelivery posts it over
            URLSession to a Tally server running in this process on loopback (SQLite, or --database).
            Baselines measured in the same rounds: one 4 KB write + fsync in the device's folder and, against
            the server, GET /healthz through the same HTTP transport.
            """)

    @Option(help: "Measured purchases per mode.")
    var purchases = 1_000

    @Option(help: "Purchases per mode before measuring.")
    var warmUp = 20

    @Option(help: "Rounds per mode; each measures its baselines, then its share of the purchases.")
    var rounds = 5

    @Option(help: "Baseline samples per round (durable writes, /healthz calls).")
    var baselineSamples = 40

    @Option(help: "Modes to run: on-device, server.")
    var mode: [String] = []

    @Option(help: "The server's database: an SQLite file path (default: a new temporary file), or a postgres:// URL of a throwaway database.")
    var database: String?

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Option(help: "The StoreKit configuration the simulated App Store sells.")
    var storeConfig: String = "Examples/Tally.storekit"

    @Option(help: "The product bought on the device.")
    var onDeviceProduct = "com.tally.zorya.report.career"

    @Option(help: "The product bought against the server.")
    var serverProduct = "com.tally.photo.credits.10"

    @Option(help: "Keep the device's files in this folder (default: a temporary folder, deleted afterwards).")
    var folder: String?

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard purchases > 0, purchases <= 1_000_000 else { throw ValidationError("--purchases must be 1 to 1000000") }
        guard warmUp >= 0, rounds > 0, rounds <= purchases, baselineSamples > 0 else {
            throw ValidationError("--warm-up must be 0 or more, --rounds 1 to --purchases, --baseline-samples positive")
        }
        for name in mode where ClientBenchmark.Mode(rawValue: name) == nil {
            throw ValidationError("--mode takes on-device or server, not \(name)")
        }
    }

    func run() async throws {
        let serverDatabase = database.map(ServerConfiguration.Database.init)
        let modes = mode.isEmpty ? ClientBenchmark.Mode.allCases : mode.compactMap(ClientBenchmark.Mode.init(rawValue:))
        let options = ClientBenchmark.Options(
            catalogURL: URL(fileURLWithPath: config), storeCatalogURL: URL(fileURLWithPath: storeConfig), modes: modes,
            purchases: purchases, warmUp: warmUp, rounds: rounds, baselineSamples: baselineSamples,
            onDeviceProduct: onDeviceProduct, serverProduct: serverProduct, serverDatabase: serverDatabase,
            folder: folder.map { URL(fileURLWithPath: $0) })
        let quiet = json
        let result = try await ClientBenchmark.run(options) { line in
            if !quiet { print(line) }
        }
        try BenchReport.print(result, json: json, table: Self.table)
    }

    static func table(_ result: ClientBenchmark.Result) -> String {
        var lines = [
            "machine: \(MachineInfo.summary)",
            "device database: \(result.deviceDatabase)",
        ]
        func row(_ name: String, _ latency: ClientBenchmark.Latency, _ note: String = "") -> String {
            String(
                format: "  %@ p50 %8.2f ms   p99 %8.2f ms   max %8.2f ms   %@", name.padding(toLength: 26, withPad: " ", startingAt: 0),
                latency.p50Milliseconds, latency.p99Milliseconds, latency.maxMilliseconds, note)
        }
        for mode in result.modes {
            let p99 = mode.paidToUsable.p99Milliseconds
            lines.append("")
            lines.append(
                "\(mode.mode): \(mode.purchases) purchases of \(mode.product) (+\(mode.grantPerPurchase) \(mode.currency) each) "
                    + "after \(mode.warmUp) warm-up, \(mode.rounds) rounds" + (mode.server.map { "; server: \($0)" } ?? ""))
            lines.append(
                row(
                    "paid → usable", mode.paidToUsable,
                    String(
                        format: "goal p99 < %.0f ms: %@; on-device goal < %.0f ms: %@", result.targetP99Milliseconds,
                        p99 < result.targetP99Milliseconds ? "met" : "MISSED", result.seedLimitMilliseconds,
                        p99 < result.seedLimitMilliseconds ? "met" : "MISSED")))
            lines.append(row("paid → purchase returned", mode.paidToReturned))
            lines.append(row("whole purchase call", mode.purchaseCall))
            for stage in mode.stages { lines.append(row("  " + stage.stage, stage.latency)) }
            lines.append(row("baseline: write + fsync", mode.durableWrite))
            if let health = mode.healthRoundTrip { lines.append(row("baseline: GET /healthz", health)) }
            var ratios = String(format: "  paid → usable p50 ÷ write+fsync p50: %.1f", mode.usableP50ToDurableWriteP50)
            if let health = mode.usableP50ToHealthP50 { ratios += String(format: "; ÷ GET /healthz p50: %.1f", health) }
            lines.append(ratios + " (medians over rounds)")
            lines.append(
                "  rounds: p50 " + mode.roundP50Milliseconds.map { String(format: "%.2f", $0) }.joined(separator: "/")
                    + " ms; p99 " + mode.roundP99Milliseconds.map { String(format: "%.2f", $0) }.joined(separator: "/") + " ms")
        }
        return lines.joined(separator: "\n")
    }
}
