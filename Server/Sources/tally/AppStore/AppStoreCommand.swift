import ArgumentParser
import Foundation
import TallyCore
import TallyTesting

/// `tally appstore`: the simulated App Store, as a process.
struct AppStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore",
        abstract: "Run the simulated App Store, make one signed purchase with it, or print a device's app receipt.",
        subcommands: [AppStoreServeCommand.self, AppStorePurchaseCommand.self, AppStoreReceiptCommand.self])
}

/// Options both `serve` and `purchase` take.
struct StoreOptions: ParsableArguments {
    @Option(help: "An Xcode StoreKit configuration file (.storekit).")
    var config: String = "Examples/Tally.storekit"

    @Option(name: .customLong("ca-dir"), help: "The certificate authority folder; created with a new chain when missing or empty.")
    var caDir: String

    @Option(name: .customLong("bundle-id"), help: "The app's bundle identifier written into what the store signs.")
    var bundleID: String = "com.tally.example"

    @Option(name: .customLong("app-apple-id"), help: "The app's Apple ID written into notifications.")
    var appAppleID: Int64?

    @Option(help: "Sandbox or Production: the environment written into what the store signs.")
    var environment: String = "Sandbox"

    func validate() throws {
        guard ["Sandbox", "Production"].contains(environment) else {
            throw ValidationError("--environment must be Sandbox or Production, not '\(environment)'")
        }
    }

    func catalog() throws -> StoreKitConfiguration {
        do {
            return try StoreKitConfiguration.load(contentsOf: URL(fileURLWithPath: config))
        } catch {
            throw ValidationError("--config \(config): \(error)")
        }
    }

    func authority() throws -> TestCertificateAuthority {
        do {
            return try TestCertificateAuthority.openOrCreate(folder: URL(fileURLWithPath: caDir), now: Date())
        } catch {
            throw ValidationError("--ca-dir \(error)")
        }
    }

    /// The receipt authority kept in the same folder (`receipt-*.pem`), minted there at first use.
    func receiptAuthority() throws -> TestReceiptAuthority {
        do {
            return try TestReceiptAuthority.openOrCreate(folder: URL(fileURLWithPath: caDir), now: Date())
        } catch {
            throw ValidationError("--ca-dir \(error)")
        }
    }

    func storeConfiguration() throws -> SimulatedAppStore.Configuration {
        SimulatedAppStore.Configuration(
            catalog: try catalog(), bundleID: bundleID, appAppleID: appAppleID,
            environment: AppStoreEnvironment(rawValue: environment))
    }
}
