import ArgumentParser
import Crypto
import Foundation
import TallyCore
import TallyServer

/// The App Store Server API's key and where the API is, for `tally serve` and `tally import`.
struct AppleAPIOptions: ParsableArguments {
    @Option(name: .customLong("apple-key"), help: ArgumentHelp("The App Store Server API's In-App Purchase key (.p8).", valueName: "FILE"))
    var appleKey: String?

    @Option(name: .customLong("apple-key-id"), help: "The In-App Purchase key's identifier.")
    var appleKeyID: String?

    @Option(name: .customLong("apple-issuer-id"), help: "The App Store Connect team's issuer id.")
    var appleIssuerID: String?

    @Option(name: .customLong("apple-api-url"), help: ArgumentHelp("Ask this App Store Server API instead of Apple's.", valueName: "URL"))
    var appleAPIURL: String?

    /// The App Store Server API's configuration from the options, then the environment; `nil`
    /// when no key is given.
    /// - Throws: `ValidationError` when part of it is missing or wrong.
    func configuration(bundleID: String, environments: [AppStoreEnvironment]) throws -> AppStoreServerAPIConfiguration? {
        let environment = ProcessInfo.processInfo.environment
        let keyFile = appleKey ?? environment["TALLY_APPLE_KEY_FILE"]
        let keyID = appleKeyID ?? environment["TALLY_APPLE_KEY_ID"]
        let issuerID = appleIssuerID ?? environment["TALLY_APPLE_ISSUER_ID"]
        let url = appleAPIURL ?? environment["TALLY_APPLE_API_URL"]
        guard keyFile != nil || keyID != nil || issuerID != nil else {
            if url != nil { throw ValidationError("--apple-api-url needs --apple-key, --apple-key-id and --apple-issuer-id") }
            return nil
        }
        guard let keyFile, let keyID, let issuerID, !keyID.isEmpty, !issuerID.isEmpty else {
            throw ValidationError("the App Store Server API needs all of --apple-key, --apple-key-id and --apple-issuer-id")
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try AppStoreServerAPIConfiguration.privateKey(contentsOf: URL(fileURLWithPath: keyFile))
        } catch {
            throw ValidationError("--apple-key \(keyFile): not a P-256 private key in PEM (\(error))")
        }
        var configuration = AppStoreServerAPIConfiguration(issuerID: issuerID, keyID: keyID, bundleID: bundleID, privateKey: key)
        if let url {
            guard let base = URL(string: url), base.scheme == "http" || base.scheme == "https", base.host != nil else {
                throw ValidationError("--apple-api-url \(url) is not an http(s) URL")
            }
            configuration.environments = environments.map { ($0, base) }
        } else {
            configuration.environments = configuration.environments.filter { environments.contains($0.environment) }
        }
        return configuration
    }
}
