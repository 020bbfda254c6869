import ArgumentParser
import Foundation
import TallyCore
import TallyKit
import TallyKitTesting
import TallyTesting
import TallyVerify

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tally device`: a simulated phone running TallyKit, from the terminal.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "A simulated device running TallyKit against the simulated App Store: buy, launch, see balances.",
        discussion: """
            The device keeps its state in --state: the App Store's record of its transactions
            (appstore.json, which outlives the app, as the real App Store does), the app's
            database (device.sqlite: journal, on-device ledger, cache) and, with --server, its
            account on that server (account.json). Credits are delivered on the device
            (OnDeviceLedger) or, with --server, by a Tally server (ServerDelivery).

            `--storekit 1` makes the device buy as StoreKit 1 does (iOS 13 and 14): the app
            receipt proves each purchase, verified on the device against the simulator's receipt
            chain (<ca-dir>/receipt-*.pem) or sent to the server as {receipt, transaction_id}.
            The device's identifier (identifierForVendor) is kept in device-id in --state.

            `--crash-at STEP` kills the process with SIGKILL at that step of the purchase, as a
            crash would; `tally device launch` afterwards shows that the credit arrives once.
            """,
        subcommands: [DevicePurchaseCommand.self, DeviceLaunchCommand.self])
}

/// What both subcommands take: where the device, its store and its server are.
struct DeviceOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions

    @Option(help: "The device's folder: the App Store's state, the app's database, its server account.")
    var state: String

    @Option(help: "The app's catalog (tally.json): what each product grants on the device.")
    var catalog: String = "Examples/tally.json"

    @Option(help: "A Tally server's URL: credits are delivered by the server instead of on the device.")
    var server: String?

    @Option(name: .customLong("storekit"), help: "The StoreKit the app uses: 2 (JWS per transaction) or 1 (app receipts).")
    var storeKit: Int = 2

    func validate() throws {
        guard [1, 2].contains(storeKit) else { throw ValidationError("--storekit must be 1 or 2, not \(storeKit)") }
        if let server, URL(string: server)?.host == nil || !["http", "https"].contains(URL(string: server)?.scheme ?? "") {
            throw ValidationError("--server must be an http(s) URL such as http://127.0.0.1:8080, not '\(server)'")
        }
        guard FileManager.default.isReadableFile(atPath: catalog) else {
            throw ValidationError("--catalog \(catalog) cannot be read (run from the repository, or give its path)")
        }
    }

    var folder: URL { URL(fileURLWithPath: state) }

    /// The app, launched: the manager over the simulated store and the chosen delivery.
    func launch(crashAt: PurchaseStep? = nil) async throws -> (PurchaseManager, SimulatedStoreKit) {
        // Everything is read and checked before the device's folder is touched.
        let catalog = try OnDeviceCatalog.load(contentsOf: URL(fileURLWithPath: self.catalog))
        var configuration = try store.storeConfiguration()
        let authority = try store.authority()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        configuration.stateFile = folder.appendingPathComponent("appstore.json")
        let receiptAuthority = try store.receiptAuthority()
        let appStore = try SimulatedAppStore(
            configuration: configuration, authority: authority, time: .system(now: { Date() }), receiptAuthority: receiptAuthority)
        let vendorID = try vendorIdentifier()
        let deviceID = DeviceIdentifier(uuid: vendorID)
        let simulated = SimulatedStoreKit(appStore, api: storeKit == 1 ? .storeKit1(device: deviceID) : .storeKit2, deviceVerificationID: vendorID)
        let database = try await LocalDatabase(path: folder.appendingPathComponent("device.sqlite").path)

        let delivery: any Delivery
        if let server, let baseURL = URL(string: server) {
            delivery = ServerDelivery(baseURL: baseURL, credentials: try await account(baseURL))
        } else {
            // The simulator's root, trusted because this command was pointed at its folder.
            let verifier = SignedDataVerifier(
                .init(
                    bundleID: .equals(configuration.bundleID), appAppleID: .any,
                    environments: [.sandbox, .xcode, .production], rootCertificates: [authority.root]),
                now: { Date() })
            let receiptVerifier = ReceiptVerifier(
                .init(
                    bundleID: .equals(configuration.bundleID), environments: [.sandbox, .xcode, .production],
                    rootCertificates: [receiptAuthority.root]),
                now: { Date() })
            delivery = try await OnDeviceLedger(
                database: database, catalog: catalog, verifier: verifier, receiptVerifier: receiptVerifier, deviceIdentifier: deviceID,
                deviceVerificationID: vendorID, now: { Date() })
        }

        var settings = PurchaseManager.Configuration(productIDs: catalog.products.map(\.id))
        settings.language = .english
        settings.refreshInterval = nil
        settings.attemptsDuringPurchase = 1
        if let crashAt {
            settings.checkpoint = { step, _ in
                guard step == crashAt else { return }
                FileHandle.standardError.write(Data("crashing at \(step.rawValue)\n".utf8))
                kill(getpid(), SIGKILL)
            }
        }
        let manager = try await PurchaseManager(
            store: simulated, delivery: delivery, database: database, configuration: settings,
            connectivity: ManualConnectivity(online: true))
        await manager.start()
        // A launch here reports what the device knows once leftovers were taken up.
        await manager.waitUntilCaughtUp()
        return (manager, simulated)
    }

    /// The device's identifier (`identifierForVendor`): made once, then read from device-id.
    /// The phone's `identifierForVendor`, which is also its `AppStore.deviceVerificationID` here:
    /// made once, then read from device-id.
    private func vendorIdentifier() throws -> UUID {
        let file = folder.appendingPathComponent("device-id")
        if let text = try? String(contentsOf: file, encoding: .utf8), let identifier = UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return identifier
        }
        let made = UUID()
        try Data(made.uuidString.utf8).write(to: file, options: .atomic)
        return made
    }

    /// The device's account on the server: registered once, then read from account.json.
    private func account(_ baseURL: URL) async throws -> ServerDelivery.Credentials {
        let file = folder.appendingPathComponent("account.json")
        if let data = try? Data(contentsOf: file) {
            return try JSONDecoder().decode(ServerDelivery.Credentials.self, from: data)
        }
        let credentials = try await ServerDelivery.register(baseURL: baseURL)
        try JSONEncoder().encode(credentials).write(to: file, options: .atomic)
        return credentials
    }

    /// What the device knows now, as one JSON object on standard output.
    func report(_ manager: PurchaseManager, _ simulated: SimulatedStoreKit, extra: [String: Any] = [:]) async throws {
        let account = try await manager.account(.fetchCurrent)
        var balances: [String: Int64] = [:]
        for balance in account.snapshot.balances { balances[balance.currency] = balance.available }
        let unfinished = try await simulated.unfinishedTransactions().count
        let journal = try await manager.journal.all().map { ["transaction_id": $0.eventID, "state": $0.state.rawValue] }
        var object: [String: Any] = [
            "mode": server == nil ? "on-device" : "server",
            "balances": balances,
            "entitlements": account.snapshot.entitlements.filter(\.active).map(\.id).sorted(),
            "unfinished_in_store": unfinished,
            "journal": journal,
        ]
        object.merge(extra) { $1 }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}

/// Fails the command with the error's stable code and message, exit status 1.
func deviceFailure(_ error: TallyError) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    return ExitCode(1)
}

/// `tally device purchase`: one purchase, as a tap on the buy button.
struct DevicePurchaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchase", abstract: "Launch the app, buy a product, and print the balances.")

    @OptionGroup var device: DeviceOptions

    @Option(help: "The product identifier.")
    var product: String

    @Option(help: "How many units of a consumable (1–10).")
    var quantity: Int = 1

    @Option(
        name: .customLong("crash-at"), help: "Kill the process with SIGKILL at this step: \(PurchaseStep.allCases.map(\.rawValue).joined(separator: ", ")).")
    var crashAt: String?

    func validate() throws {
        if let crashAt, PurchaseStep(rawValue: crashAt) == nil {
            throw ValidationError("--crash-at must be one of \(PurchaseStep.allCases.map(\.rawValue).joined(separator: ", ")), not '\(crashAt)'")
        }
        guard (1...10).contains(quantity) else { throw ValidationError("--quantity must be 1 to 10") }
    }

    func run() async throws {
        do {
            let (manager, simulated) = try await device.launch(crashAt: crashAt.flatMap(PurchaseStep.init(rawValue:)))
            let outcome = try await manager.purchase(product, quantity: quantity)
            let described: [String: Any] =
                switch outcome {
                case .purchased(let receipt): ["outcome": "purchased", "transaction_id": receipt.transactionID]
                case .cancelled: ["outcome": "cancelled"]
                case .pending: ["outcome": "pending"]
                case .deliveryPending(let transactionID): ["outcome": "delivery_pending", "transaction_id": transactionID]
                }
            try await device.report(manager, simulated, extra: described)
            await manager.stop()
        } catch let error as TallyError {
            throw deviceFailure(error)
        }
    }
}

/// `tally device launch`: the app started again; whatever was left unfinished is taken up.
struct DeviceLaunchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch", abstract: "Launch the app (delivering whatever was left unfinished) and print the balances.")

    @OptionGroup var device: DeviceOptions

    func run() async throws {
        do {
            let (manager, simulated) = try await device.launch()
            try await device.report(manager, simulated)
            await manager.stop()
        } catch let error as TallyError {
            throw deviceFailure(error)
        }
    }
}
