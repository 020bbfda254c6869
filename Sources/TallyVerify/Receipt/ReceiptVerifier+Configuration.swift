public import TallyCore
public import X509

extension ReceiptVerifier {
    /// A value the receipt must match, or an explicit decision not to check it.
    public typealias Expectation<Value: Hashable & Sendable> = SignedDataVerifier.Expectation<Value>
    /// The time at which certificates must be valid; ``SignedDataVerifier/ValidationTime/signedDate``
    /// is the receipt's creation date.
    public typealias ValidationTime = SignedDataVerifier.ValidationTime

    /// What a receipt verifier trusts and what it expects receipts to say.
    ///
    /// ```swift
    /// var configuration = ReceiptVerifier.Configuration(
    ///     bundleID: .equals("com.example.zorya"), environments: [.production, .sandbox])
    /// configuration.appVersion = .equals("42")
    /// ```
    public struct Configuration: Sendable {
        /// The roots a chain must end in: Apple Root CA unless set. A test root, or Xcode's
        /// StoreKit certificate, is trusted only when it is put here.
        public var rootCertificates: [Certificate]
        /// The bundle identifier the receipt must name.
        public var bundleID: Expectation<String>
        /// The app version (`CFBundleVersion`) the receipt must name; not checked by default,
        /// because a receipt is not refreshed when the app updates.
        public var appVersion: Expectation<String>
        /// The environments accepted. A receipt's `ProductionSandbox` counts as
        /// ``AppStoreEnvironment/sandbox``.
        public var environments: Set<AppStoreEnvironment>
        /// Whether a receipt without an environment attribute passes the environment check. Off by default.
        public var acceptsMissingEnvironment: Bool
        /// The time at which certificates must be valid: the receipt's creation date by default.
        public var validationTime: ValidationTime
        /// How many verified chains to keep; 0 disables the cache.
        public var chainCacheCapacity: Int
        /// The longest receipt accepted, in bytes (decoded). Receipts grow by about 400 bytes
        /// per in-app purchase; 2 MiB holds several thousand.
        public var maximumLength: Int

        /// The default of ``maximumLength``: 2 MiB.
        public static let defaultMaximumLength = 2 * 1024 * 1024

        /// - Parameters:
        ///   - bundleID: the bundle identifier receipts must name, or `.any` to not check it.
        ///   - appVersion: the app version, or `.any` (the default) to not check it.
        ///   - environments: the environments accepted.
        ///   - rootCertificates: the trust anchors; Apple Root CA by default.
        public init(
            bundleID: Expectation<String>,
            appVersion: Expectation<String> = .any,
            environments: Set<AppStoreEnvironment>,
            rootCertificates: [Certificate] = [AppleRootCertificates.appleRootCA]
        ) {
            self.rootCertificates = rootCertificates
            self.bundleID = bundleID
            self.appVersion = appVersion
            self.environments = environments
            self.acceptsMissingEnvironment = false
            self.validationTime = .signedDate
            self.chainCacheCapacity = 16
            self.maximumLength = Self.defaultMaximumLength
        }
    }
}
