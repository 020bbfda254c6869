import ArgumentParser
import Foundation
import Logging
import TallyServer

/// `tally`: verify App Store signed data, run the simulated App Store and the purchase
/// server, and measure them.
@main
struct TallyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally",
        abstract: "The Tally in-app purchase system: verification, server, simulated App Store and device, benchmarks.",
        subcommands: [
            ServeCommand.self, VerifyCommand.self, BackupCommand.self, RestoreCommand.self, CheckCommand.self,
            ImportCommand.self, ConsoleCommand.self, KeysCommand.self, AppStoreCommand.self, DeviceCommand.self, BenchCommand.self,
        ])

    /// Runs the command line; usage errors exit with status 2, as documented.
    static func main() async {
        LoggingSystem.bootstrap(TallyLogHandler.standardError)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
