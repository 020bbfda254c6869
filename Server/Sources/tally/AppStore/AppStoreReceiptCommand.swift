import ArgumentParser
import Foundation
import TallyTesting
import TallyVerify

/// `tally appstore receipt`: a device's app receipt, base64, on standard output.
struct AppStoreReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Print a device's app receipt (StoreKit 1) from the simulated App Store, in base64.",
        discussion: """
            Reads the store's state (<ca-dir>/store-state.json, or --state), as `tally appstore serve`
            saves it, and prints the receipt the device holds: the one issued at its last StoreKit 1
            purchase or refresh, or a new one when it has none. --refresh issues it again, leaving out
            consumables the app has finished (and saves the state: stop `serve` first, or use its
            POST /control/receipt/refresh). The receipt verifies with
            `tally verify --kind receipt --root <ca-dir>/receipt-root.cer --device-id <id>`.
            """)

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("device-id"), help: "The device's identifier (identifierForVendor, a UUID; or hexadecimal).")
    var deviceID: String

    @Option(help: "The store's state file. Default: <ca-dir>/store-state.json.")
    var state: String?

    @Flag(help: "Issue the receipt again now, as SKReceiptRefreshRequest does.")
    var refresh = false

    func validate() throws {
        guard DeviceIdentifier(hex: deviceID) != nil else {
            throw ValidationError("--device-id must be a UUID or hexadecimal, not '\(deviceID)'")
        }
    }

    func run() async throws {
        guard let device = DeviceIdentifier(hex: deviceID) else { throw ValidationError("--device-id must be a UUID or hexadecimal") }
        var configuration = try store.storeConfiguration()
        configuration.stateFile = state.map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: store.caDir).appendingPathComponent("store-state.json")
        do {
            let simulated = try SimulatedAppStore(
                configuration: configuration, authority: try store.authority(), time: .system(now: { Date() }),
                receiptAuthority: try store.receiptAuthority())
            let receipt = refresh ? try await simulated.refreshAppReceipt(for: device) : try await simulated.appReceipt(for: device)
            print(receipt.base64)
        } catch let error as SimulatedAppStoreError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
