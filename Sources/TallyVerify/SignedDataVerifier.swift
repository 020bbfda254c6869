import Crypto
public import Foundation
public import TallyCore
import X509

/// Decides whether App Store signed data is genuine and meant for this app.
///
/// For each JWS it checks, in this order, and stops at the first failure:
/// 1. shape: size, three base64url segments, a JSON header without unknown `crit`;
/// 2. `alg` is `ES256`;
/// 3. `x5c` holds three certificates (one, for Xcode data, when Xcode is configured and that
///    certificate is a configured root);
/// 4. leaf and intermediate chain to a configured root under RFC 5280, with Apple's OIDs
///    (`x5c[2]` is never trusted; verified chains are cached);
/// 5. the ES256 signature (raw r‖s) over `header.payload` verifies with the leaf's key;
/// 6. the payload decodes as the expected kind;
/// 7. every certificate is valid at the validation time;
/// 8. the chain is not revoked (only when online checking is configured);
/// 9. bundle identifier, App Apple ID and environment match the configuration;
/// 10. the identifiers the payload carries are well-formed (decimal transaction ids, product
///     and bundle ids of App Store characters, a UUID as `notificationUUID`).
///
/// ```swift
/// let verifier = SignedDataVerifier(
///     .init(bundleID: .equals("com.example.app"), appAppleID: .equals(1234), environments: [.production]),
///     now: { Date() })
/// switch await verifier.verifyTransaction(jws) {
/// case .valid(let verified): print(verified.payload.productID ?? "")
/// case .invalid(let failure): print(failure.code)
/// }
/// ```
public struct SignedDataVerifier: Sendable {
    /// The configuration this verifier was made with.
    public let configuration: Configuration
    private let now: @Sendable () -> Date
    private let cache: ChainCache<TrustedChain>
    private let headers: HeaderMemo
    private let validator: ChainValidator

    /// - Parameters:
    ///   - configuration: what to trust and expect.
    ///   - now: the current time, read only for ``ValidationTime/current``, for data without a
    ///     signed date, and for revocation checks.
    public init(_ configuration: Configuration, now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.now = now
        self.cache = ChainCache(capacity: configuration.chainCacheCapacity)
        self.headers = HeaderMemo(capacity: min(8, configuration.chainCacheCapacity))
        self.validator = ChainValidator(roots: configuration.rootCertificates)
    }

    /// Verifies a signed transaction (`Transaction.jwsRepresentation`, `signedTransactionInfo`).
    public func verifyTransaction(_ jws: String) async -> VerificationResult<Verified<TransactionPayload>> {
        await verify(jws, as: TransactionPayload.self)
    }

    /// Verifies signed subscription renewal info (`signedRenewalInfo`).
    public func verifyRenewalInfo(_ jws: String) async -> VerificationResult<Verified<RenewalInfoPayload>> {
        await verify(jws, as: RenewalInfoPayload.self)
    }

    /// Verifies a signed app transaction (`AppTransaction.jwsRepresentation`).
    public func verifyAppTransaction(_ jws: String) async -> VerificationResult<Verified<AppTransactionPayload>> {
        await verify(jws, as: AppTransactionPayload.self)
    }

    /// Verifies a Retention Messaging real-time request.
    public func verifyRealtimeRequest(_ jws: String) async -> VerificationResult<Verified<RealtimeRequestPayload>> {
        await verify(jws, as: RealtimeRequestPayload.self)
    }

    /// Verifies an App Store Server Notification V2 (`signedPayload`).
    ///
    /// - Parameters:
    ///   - jws: the notification's `signedPayload`.
    ///   - includingSignedData: also verify the signed transaction, renewal info and app
    ///     transaction it carries; if any of them fails, the notification fails with its code.
    public func verifyNotification(_ jws: String, includingSignedData: Bool = false) async -> VerificationResult<VerifiedNotification> {
        let outer = await verify(jws, as: NotificationPayload.self)
        guard case .valid(let notification) = outer else { return .invalid(outer.failure!) }
        guard includingSignedData else {
            return .valid(VerifiedNotification(notification: notification, transaction: nil, renewalInfo: nil, appTransaction: nil))
        }
        var transaction: Verified<TransactionPayload>?
        var renewalInfo: Verified<RenewalInfoPayload>?
        var appTransaction: Verified<AppTransactionPayload>?
        if let signed = notification.payload.data?.signedTransactionInfo {
            switch await verifyTransaction(signed) {
            case .valid(let value): transaction = value
            case .invalid(let failure): return .invalid(Self.nested(failure, in: "signedTransactionInfo"))
            }
        }
        if let signed = notification.payload.data?.signedRenewalInfo {
            switch await verifyRenewalInfo(signed) {
            case .valid(let value): renewalInfo = value
            case .invalid(let failure): return .invalid(Self.nested(failure, in: "signedRenewalInfo"))
            }
        }
        if let signed = notification.payload.appData?.signedAppTransactionInfo {
            switch await verifyAppTransaction(signed) {
            case .valid(let value): appTransaction = value
            case .invalid(let failure): return .invalid(Self.nested(failure, in: "signedAppTransactionInfo"))
            }
        }
        return .valid(
            VerifiedNotification(
                notification: notification, transaction: transaction, renewalInfo: renewalInfo, appTransaction: appTransaction))
    }

    /// How many verified chains are cached now.
    public var cachedChainCount: Int { cache.count }

    /// How many chains were validated in full (cache misses) since the verifier was made.
    var chainValidations: Int { cache.insertions }

    private static func nested(_ failure: VerificationFailure, in field: String) -> VerificationFailure {
        VerificationFailure(failure.code, "\(field): \(failure.reason)", file: failure.file, line: failure.line)
    }

    // MARK: - The pipeline

    func verify<Payload: IdentityClaiming>(_ jws: String, as: Payload.Type) async -> VerificationResult<Verified<Payload>> {
        let parsed: CompactJWS
        do {
            parsed = try CompactJWS(jws, maximumLength: configuration.maximumLength, headers: headers)
        } catch {
            return .invalid(error)
        }
        guard parsed.header.alg == "ES256" else {
            let alg = parsed.header.alg.map { "'\($0)'" } ?? "missing"
            return .invalid(VerificationFailure(.unsupportedAlgorithm, "alg is \(alg); App Store signed data is ES256"))
        }
        let x5c = parsed.header.x5c ?? []
        switch x5c.count {
        case 3:
            let key = parsed.header.chainKey ?? ChainKey(leaf: x5c[0], intermediate: x5c[1])
            return await verifyChained(parsed, key: key, as: Payload.self)
        case 1 where configuration.acceptsXcode:
            return await verifyXcode(parsed, certificate: x5c[0], as: Payload.self)
        case 1:
            return .invalid(
                VerificationFailure(
                    .badCertificateChainLength,
                    "x5c holds 1 certificate, as Xcode's self-signed data does; Xcode data is accepted only when the Xcode environment is configured"))
        default:
            let what = parsed.header.x5c == nil ? "header has no x5c" : "x5c holds \(x5c.count) certificates"
            return .invalid(VerificationFailure(.badCertificateChainLength, "\(what); App Store signed data carries exactly 3"))
        }
    }

    private func verifyChained<Payload: IdentityClaiming>(
        _ parsed: CompactJWS, key: ChainKey, as: Payload.Type
    ) async -> VerificationResult<Verified<Payload>> {
        let chain: TrustedChain
        let revocationCheckedAt: Date?
        if let cached = cache.lookup(key) {
            chain = cached.chain
            revocationCheckedAt = cached.revocationCheckedAt
        } else {
            let leaf: Certificate
            let intermediate: Certificate
            do {
                leaf = try Self.certificate(key.leaf, name: "x5c[0] (leaf)")
                intermediate = try Self.certificate(key.intermediate, name: "x5c[1] (intermediate)")
            } catch {
                return .invalid(error)
            }
            switch await validator.validate(leaf: leaf, intermediate: intermediate) {
            case .success(let trusted):
                chain = trusted
                cache.insert(trusted, for: key)
            case .failure(let failure):
                return .invalid(failure)
            }
            revocationCheckedAt = nil
        }

        if let failure = Self.checkSignature(parsed, key: chain.leafKey) { return .invalid(failure) }
        let payload: Payload
        switch Self.decode(parsed.payload, as: Payload.self) {
        case .success(let value): payload = value
        case .failure(let failure): return .invalid(failure)
        }
        let time = validationTime(for: payload)
        if let failure = chain.validityFailure(at: time) { return .invalid(failure) }

        if let revocation = configuration.revocation {
            let current = now()
            let fresh = revocationCheckedAt.map { current.timeIntervalSince($0) < revocation.freshness } ?? false
            if !fresh {
                let checker = RevocationChecker(transport: revocation.transport)
                if let failure = await checker.check(chain: chain.certificates, at: time) { return .invalid(failure) }
                cache.markRevocationChecked(key, at: current)
            }
        }

        if let failure = checkClaims(payload.identityClaims) { return .invalid(failure) }
        if let failure = SignedIdentifier.failure(in: payload.signedIdentifiers) { return .invalid(failure) }
        return .valid(Verified(payload: payload, rawPayload: Data(parsed.payload), validationTime: time, origin: .certificateChain))
    }

    /// Xcode's StoreKit testing signs with one self-signed certificate. Nothing vouches for it,
    /// so it is trusted only when it is one of the configured roots (the developer saved it from
    /// Xcode); it is still checked all the way (Apple's libraries check nothing here), and only
    /// ever accepted for payloads that say they come from Xcode.
    private func verifyXcode<Payload: IdentityClaiming>(
        _ parsed: CompactJWS, certificate base64: String, as: Payload.Type
    ) async -> VerificationResult<Verified<Payload>> {
        let certificate: Certificate
        do {
            certificate = try Self.certificate(base64, name: "x5c[0] (Xcode certificate)")
        } catch {
            return .invalid(error)
        }
        // Any Mac makes such a certificate: only the one the developer configured is trusted.
        guard configuration.rootCertificates.contains(certificate) else {
            return .invalid(
                VerificationFailure(
                    .untrustedChain,
                    "the Xcode certificate '\(certificate.subject)' is not a configured root; Xcode data verifies only with Xcode's StoreKit testing certificate given explicitly (Configuration.acceptXcodeTesting(certificate:))"
                ))
        }
        guard certificate.subject == certificate.issuer,
            certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
        else {
            return .invalid(VerificationFailure(.untrustedChain, "a single x5c certificate must be Xcode's self-signed one; this one is not self-signed"))
        }
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else {
            return .invalid(VerificationFailure(.invalidCertificateChain, "the Xcode certificate's key is not P-256, so it cannot sign ES256"))
        }
        if let failure = Self.checkSignature(parsed, key: key) { return .invalid(failure) }
        let payload: Payload
        switch Self.decode(parsed.payload, as: Payload.self) {
        case .success(let value): payload = value
        case .failure(let failure): return .invalid(failure)
        }
        let environment = payload.identityClaims.environment
        guard environment == .xcode else {
            let said = environment.map { "'\($0.rawValue)'" } ?? "no environment"
            return .invalid(
                VerificationFailure(
                    .untrustedChain,
                    "a self-signed certificate vouches only for Xcode data; this payload says \(said)"))
        }
        let time = validationTime(for: payload)
        if let failure = TrustedChain.validityFailure(of: [certificate], names: ["Xcode"], at: time) { return .invalid(failure) }
        if let failure = checkClaims(payload.identityClaims) { return .invalid(failure) }
        if let failure = SignedIdentifier.failure(in: payload.signedIdentifiers) { return .invalid(failure) }
        return .valid(Verified(payload: payload, rawPayload: Data(parsed.payload), validationTime: time, origin: .xcodeSelfSigned))
    }

    // MARK: - Steps

    private static func certificate(_ base64: String, name: String) throws(VerificationFailure) -> Certificate {
        guard let der = Base64.decode(base64.utf8, alphabet: .standard) else {
            throw VerificationFailure(.malformedCertificate, "\(name) is not base64")
        }
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw VerificationFailure(.malformedCertificate, "\(name) is not a DER X.509 certificate: \(InputProblem.certificate(error))")
        }
    }

    private static func checkSignature(_ parsed: CompactJWS, key: P256.Signing.PublicKey) -> VerificationFailure? {
        guard parsed.signature.count == 64 else {
            let hint = parsed.signature.first == 0x30 ? " (it looks DER-encoded; JWS uses raw r‖s)" : ""
            return VerificationFailure(.badSignature, "ES256 signature is \(parsed.signature.count) bytes, not 64\(hint)")
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature),
            parsed.withSigningInput({ key.isValidSignature(signature, for: $0) })
        else {
            return VerificationFailure(.badSignature, "ES256 signature does not verify with the leaf certificate's key")
        }
        return nil
    }

    private static func decode<Payload: Decodable>(_ bytes: [UInt8], as: Payload.Type) -> Result<Payload, VerificationFailure> {
        do {
            return .success(try AppStoreJSON.decode(Payload.self, from: bytes))
        } catch {
            return .failure(VerificationFailure(.payloadNotDecodable, "payload is not a \(String(describing: Payload.self)): \(InputProblem.decoding(error))"))
        }
    }

    private func validationTime(for payload: some AppStoreSignedPayload) -> Date {
        switch configuration.validationTime {
        case .fixed(let date):
            return date
        case .current:
            return now()
        case .signedDate:
            // Online checks are about the present, so they use the present, as Apple's do.
            if configuration.revocation != nil { return now() }
            return payload.validationDate ?? now()
        }
    }

    private func checkClaims(_ claims: IdentityClaims) -> VerificationFailure? {
        if claims.carriesBundleID, case .equals(let expected) = configuration.bundleID, claims.bundleID != expected {
            let said = claims.bundleID.map { "'\($0)'" } ?? "no bundle identifier"
            return VerificationFailure(.wrongBundleID, "payload names \(said); expected '\(expected)'")
        }
        if claims.carriesAppAppleID, case .equals(let expected) = configuration.appAppleID {
            // Production data must name the app; when this verifier serves Production, so must
            // data that names no environment, and other data is held to the ID it names.
            let servesProduction = configuration.environments.contains(.production)
            let mustMatch =
                claims.environment == .production
                || (servesProduction && (claims.appAppleID != nil || claims.environment == nil))
            if mustMatch, claims.appAppleID != expected {
                let said = claims.appAppleID.map { "\($0)" } ?? "no App Apple ID"
                return VerificationFailure(.wrongAppAppleID, "payload names \(said); expected \(expected)")
            }
        }
        if let environment = claims.environment {
            guard configuration.environments.contains(environment) else {
                let accepted = configuration.environments.map(\.rawValue).sorted().joined(separator: ", ")
                return VerificationFailure(.wrongEnvironment, "payload is from '\(environment.rawValue)'; accepted: \(accepted)")
            }
        } else if !configuration.acceptsMissingEnvironment {
            return VerificationFailure(.wrongEnvironment, "payload names no environment, and payloads without one are not accepted")
        }
        return nil
    }
}
