import ArgumentParser

/// `tally bench`: benchmarks whose figures go to docs/benchmarks.md.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Tally's speed on this machine.",
        subcommands: [
            BenchVerifyCommand.self, BenchServerCommand.self, BenchClientCommand.self, BenchConsoleCommand.self, BenchWebhooksCommand.self,
        ])
}
