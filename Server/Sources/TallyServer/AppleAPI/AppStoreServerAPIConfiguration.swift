public import Crypto
public import Foundation
public import TallyCore

/// Who this server is to the App Store Server API, and where that API is: the In-App Purchase
/// key from App Store Connect (its private part, key id and the team's issuer id), the app's
/// bundle id, and the base URLs, which tests point at the simulated App Store.
public struct AppStoreServerAPIConfiguration: Sendable {
    /// Apple's production base URL.
    public static let productionURL = URL(string: "https://api.storekit.itunes.apple.com")!
    /// Apple's sandbox base URL.
    public static let sandboxURL = URL(string: "https://api.storekit-sandbox.itunes.apple.com")!

    /// The team's issuer id (App Store Connect, Users and Access, Integrations).
    public var issuerID: String
    /// The In-App Purchase key's identifier.
    public var keyID: String
    /// The app's bundle identifier.
    public var bundleID: String
    /// The key's private part.
    public var privateKey: P256.Signing.PrivateKey
    /// Where each environment's API is, asked in this order: production, then sandbox, by
    /// default, so a transaction the production API does not know (a TestFlight or review
    /// purchase) is looked up in the sandbox.
    public var environments: [(environment: AppStoreEnvironment, baseURL: URL)]
    /// How long one try may take, connecting (at most
    /// ``AsyncHTTPClientTransport/connectTimeout``) included; never more than what is left of
    /// ``callBudget``.
    public var timeout: TimeInterval = 5
    /// The most time one call to Apple may take, every try, environment and wait between tries
    /// included; a request to Tally that asks Apple several things shares one budget among them
    /// (``AppStoreServerClient/sharingBudget(_:)``). 10 seconds: a device waits 30 for Tally's
    /// answer, so an Apple that does not answer is reported (`apple_unavailable`) well before.
    public var callBudget: TimeInterval = 10
    /// How many times one request is tried in one environment when Apple answers 429 or 5xx,
    /// or does not answer.
    public var maximumAttempts = 3
    /// The longest wait between two tries; a `Retry-After` longer than this ends the tries.
    public var maximumBackoff: TimeInterval = 30
    /// The time bearer tokens are dated by: the real time, which Apple checks them against,
    /// whatever clock the server's own logic runs on.
    public var now: @Sendable () -> Date = { Date() }

    /// - Parameters:
    ///   - issuerID: the team's issuer id.
    ///   - keyID: the key's identifier.
    ///   - bundleID: the app's bundle identifier.
    ///   - privateKey: the key's private part.
    ///   - environments: the environments to ask, in order; production then sandbox by default.
    public init(
        issuerID: String, keyID: String, bundleID: String, privateKey: P256.Signing.PrivateKey,
        environments: [(environment: AppStoreEnvironment, baseURL: URL)] = [(.production, productionURL), (.sandbox, sandboxURL)]
    ) {
        self.issuerID = issuerID
        self.keyID = keyID
        self.bundleID = bundleID
        self.privateKey = privateKey
        self.environments = environments
    }

    /// Reads the key from the `.p8` file App Store Connect gives (PKCS #8 in PEM).
    /// - Throws: when the file cannot be read or holds no P-256 private key.
    public static func privateKey(contentsOf file: URL) throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(pemRepresentation: String(contentsOf: file, encoding: .utf8))
    }
}
