public import Foundation
public import TallyCore
public import X509

extension SignedDataVerifier {
    /// What a verifier trusts and what it expects the signed data to say.
    ///
    /// ```swift
    /// var configuration = SignedDataVerifier.Configuration(
    ///     bundleID: .equals("com.example.zorya"),
    ///     appAppleID: .equals(1_234_567_890),
    ///     environments: [.production])
    /// configuration.validationTime = .signedDate  // offline, as by default
    /// ```
    public struct Configuration: Sendable {
        /// The roots a chain must end in. Apple Root CA - G3 unless set; a test root is
        /// trusted only when it is put here.
        public var rootCertificates: [Certificate]
        /// The bundle identifier the data must name.
        public var bundleID: Expectation<String>
        /// The App Apple ID the data must name, where it names one (Production data must).
        public var appAppleID: Expectation<Int64>
        /// The environments accepted. Including ``AppStoreEnvironment/xcode`` enables data signed
        /// by Xcode's self-signed certificate when that certificate is among
        /// ``rootCertificates`` (see ``acceptXcodeTesting(certificate:)``), and only for payloads
        /// that say Xcode.
        public var environments: Set<AppStoreEnvironment>
        /// Whether a payload with no environment field (transactions signed before Apple added
        /// it, in 2021 and earlier) passes the environment check. Off by default.
        public var acceptsMissingEnvironment: Bool
        /// The time at which certificates must be valid.
        public var validationTime: ValidationTime
        /// Online revocation checking; `nil` (off) by default.
        public var revocation: RevocationChecking?
        /// How many verified chains to keep; 0 disables the cache.
        public var chainCacheCapacity: Int
        /// The longest JWS accepted, in bytes. Real notifications are under 20 KB.
        public var maximumLength: Int

        /// - Parameters:
        ///   - bundleID: the bundle identifier the data must name, or `.any` to not check it.
        ///   - appAppleID: the App Apple ID, or `.any` to not check it.
        ///   - environments: the environments accepted.
        ///   - rootCertificates: the trust anchors; Apple Root CA - G3 by default.
        public init(
            bundleID: Expectation<String>,
            appAppleID: Expectation<Int64>,
            environments: Set<AppStoreEnvironment>,
            rootCertificates: [Certificate] = [AppleRootCertificates.appleRootCAG3]
        ) {
            self.rootCertificates = rootCertificates
            self.bundleID = bundleID
            self.appAppleID = appAppleID
            self.environments = environments
            self.acceptsMissingEnvironment = false
            self.validationTime = .signedDate
            self.revocation = nil
            self.chainCacheCapacity = 64
            self.maximumLength = 256 * 1024
        }

        /// Whether Xcode's self-signed data is accepted at all.
        var acceptsXcode: Bool { environments.contains(.xcode) }
    }

    /// A value the signed data must match, or an explicit decision not to check it.
    public enum Expectation<Value: Hashable & Sendable>: Hashable, Sendable {
        /// The data must carry exactly this value.
        case equals(Value)
        /// Not checked. Meant for tools that inspect data of unknown origin, never for granting.
        case any
    }

    /// The time at which certificates must be valid. Always an input: the verifier never
    /// reads a clock except through the `now` it was given.
    public enum ValidationTime: Hashable, Sendable {
        /// The payload's `signedDate` (`receiptCreationDate` for app transactions and app
        /// receipts), or now when it has none. With revocation checking on, now, as Apple does online.
        case signedDate
        /// The current time from the verifier's `now`.
        case current
        /// A fixed time.
        case fixed(Date)
    }
}
