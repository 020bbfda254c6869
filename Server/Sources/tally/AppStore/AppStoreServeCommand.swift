import ArgumentParser
import Crypto
import Foundation
import Hummingbird
import Logging
import TallyCore
import TallyTesting
import TallyTestingServer

/// `tally appstore serve`: the simulated App Store on loopback.
struct AppStoreServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the simulated App Store on loopback: a control API and a fake App Store Server API.",
        discussion: """
            The store keeps its state in <ca-dir>/store-state.json (or --state) and continues from it
            after a restart. App receipts (StoreKit 1) are signed by the receipt chain in
            <ca-dir>/receipt-*.pem, created on first run; trust <ca-dir>/receipt-root.cer to verify them. Notifications go to --notify with Apple's retry schedule. Tokens for the
            App Store Server API are checked against the key in <ca-dir>/api-key.pem, created on first
            run with its issuer and key identifiers in <ca-dir>/api-key.json.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "The port to listen on; 0 for any free port (the log says which).")
    var port: Int = 8090

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "Where App Store Server Notifications V2 are posted.")
    var notify: String?

    @Option(
        name: .customLong("time-rate"), help: "Xcode's time rate: realTime, monthlyRenewalEveryThirtySeconds, oneRenewalEveryTwoSeconds, … (or its number).")
    var timeRate: String?

    @Option(help: "The store's state file. Default: <ca-dir>/store-state.json.")
    var state: String?

    func validate() throws {
        if let timeRate, TimeRate(name: timeRate) == nil {
            throw ValidationError("--time-rate '\(timeRate)' is not one of \(TimeRate.allCases.map(\.name).joined(separator: ", "))")
        }
        if let notify, URL(string: notify)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--notify must be an http or https URL")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        var logger = Logger(label: "tally.appstore")
        logger.logLevel = .info
        let folder = URL(fileURLWithPath: store.caDir)
        let authority = try store.authority()
        var configuration = try store.storeConfiguration()
        configuration.stateFile = state.map { URL(fileURLWithPath: $0) } ?? folder.appendingPathComponent("store-state.json")
        configuration.notificationURL = notify.flatMap(URL.init(string:))
        configuration.timeRate = timeRate.flatMap(TimeRate.init(name:))
        let simulated = try SimulatedAppStore(
            configuration: configuration, authority: authority, time: .system(now: { Date() }), receiptAuthority: try store.receiptAuthority())
        let credentials = try APIKeyFile.openOrCreate(folder: folder)
        if !["127.0.0.1", "::1", "localhost"].contains(host) {
            // The control API has no authentication: anyone who reaches it can mint purchases signed by this root.
            logger.warning(
                "the control API of the simulated App Store has no authentication and listens on \(host): anyone who reaches it can mint signed purchases. Bind it to 127.0.0.1 unless this network is yours alone."
            )
        }

        let router = AppStoreSimulatorRouter.build(store: simulated, credentials: credentials.credentials)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "tally-appstore"),
            services: [StoreTicker(store: simulated, clock: ContinuousClock(), logger: logger)],
            logger: logger)
        logger.info(
            "simulated App Store",
            metadata: [
                "url": "http://\(host):\(port)", "root": "\(folder.appendingPathComponent("root.cer").path)",
                "receipt_root": "\(folder.appendingPathComponent(TestReceiptAuthority.FolderFile.rootDER.rawValue).path)",
                "bundle_id": "\(configuration.bundleID)", "environment": "\(configuration.environment.rawValue)",
                "notify": "\(notify ?? "none")", "api_issuer_id": "\(credentials.issuerID)", "api_key_id": "\(credentials.keyID)",
            ])
        try await app.runService()
    }
}

/// The In-App Purchase key the fake App Store Server API accepts, kept in the CA folder.
struct APIKeyFile {
    let issuerID: String
    let keyID: String
    let key: P256.Signing.PrivateKey

    var credentials: ServerAPICredentials {
        ServerAPICredentials(issuerID: issuerID, keys: [keyID: key.publicKey])
    }

    static func openOrCreate(folder: URL) throws -> APIKeyFile {
        let keyURL = folder.appendingPathComponent("api-key.pem")
        let idsURL = folder.appendingPathComponent("api-key.json")
        if let pem = try? String(contentsOf: keyURL, encoding: .utf8), let ids = try? Data(contentsOf: idsURL),
            let object = (try? JSONSerialization.jsonObject(with: ids)) as? [String: String],
            let issuer = object["issuer_id"], let keyID = object["key_id"]
        {
            return APIKeyFile(issuerID: issuer, keyID: keyID, key: try P256.Signing.PrivateKey(pemRepresentation: pem))
        }
        let file = APIKeyFile(
            issuerID: UUID().uuidString.lowercased(),
            keyID: String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10)),
            key: P256.Signing.PrivateKey())
        try Data(file.key.pemRepresentation.utf8).write(to: keyURL, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyURL.path)
        let ids = try JSONSerialization.data(withJSONObject: ["issuer_id": file.issuerID, "key_id": file.keyID], options: [.sortedKeys, .prettyPrinted])
        try ids.write(to: idsURL, options: .atomic)
        return file
    }
}
