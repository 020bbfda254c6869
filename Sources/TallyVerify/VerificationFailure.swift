/// Why a piece of signed data was rejected: a stable ``Code`` and a reason for humans.
///
/// Two failures are equal when their codes are equal; the reason and source location are
/// for logs and bug reports. Codes never change meaning and are never reused; each one is
/// documented in `docs/verification-errors.md`, with its Apple counterpart.
///
/// ```swift
/// switch await verifier.verifyTransaction(jws) {
/// case .valid(let verified): grant(verified.payload)
/// case .invalid(let failure) where failure.isRetryable: retryLater()
/// case .invalid(let failure): reject(failure.code) // e.g. "wrong_bundle_id"
/// }
/// ```
public struct VerificationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable, machine-readable reason.
    public let code: Code
    /// What exactly is wrong, in English, for logs.
    public let reason: String
    /// Where in Tally the failure was decided.
    public let file: String
    /// The line in ``file``.
    public let line: Int

    /// Creates a failure; the source location defaults to the caller's.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// Whether trying again later may succeed (the revocation responder was unreachable).
    public var isRetryable: Bool { code == .revocationCheckUnavailable }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable verification failure code.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input is longer than the configured limit; it was not parsed.
        public static let inputTooLarge = Self(rawValue: "input_too_large")
        /// Not a compact JWS: not three segments, not base64url, or a header that is not a
        /// JSON object of the expected shape.
        public static let malformedJWS = Self(rawValue: "malformed_jws")
        /// The header's `alg` is not `ES256`; for a receipt, the signer's digest is not SHA-1 or
        /// SHA-256, or its signature algorithm not RSA with that digest.
        public static let unsupportedAlgorithm = Self(rawValue: "unsupported_algorithm")
        /// `x5c` does not hold exactly three certificates (one for Xcode, when enabled); a
        /// receipt's signer was issued directly by a root, without an intermediate.
        public static let badCertificateChainLength = Self(rawValue: "bad_certificate_chain_length")
        /// An `x5c` entry is not base64 of a DER X.509 certificate.
        public static let malformedCertificate = Self(rawValue: "malformed_certificate")
        /// The certificates do not chain to a configured root.
        public static let untrustedChain = Self(rawValue: "untrusted_chain")
        /// A certificate carries a critical extension no policy here understands.
        public static let unhandledCriticalExtension = Self(rawValue: "unhandled_critical_extension")
        /// The intermediate or leaf lacks Apple's marker OID.
        public static let missingAppleOID = Self(rawValue: "missing_apple_oid")
        /// The chain breaks another RFC 5280 rule (basic constraints, key usage, …).
        public static let invalidCertificateChain = Self(rawValue: "invalid_certificate_chain")
        /// A certificate's validity period ended before the validation time.
        public static let certificateExpired = Self(rawValue: "certificate_expired")
        /// A certificate's validity period starts after the validation time.
        public static let certificateNotYetValid = Self(rawValue: "certificate_not_yet_valid")
        /// The ES256 signature does not verify with the leaf's key, or is not 64 bytes; for a
        /// receipt, the RSA signature does not verify, or the signed attributes' message digest
        /// is not the content's.
        public static let badSignature = Self(rawValue: "bad_signature")
        /// The payload is not JSON of the expected kind; for a receipt, the signed content is not
        /// a receipt's attribute set.
        public static let payloadNotDecodable = Self(rawValue: "payload_not_decodable")
        /// The payload is for another app (bundle identifier).
        public static let wrongBundleID = Self(rawValue: "wrong_bundle_id")
        /// The payload is for another app (App Apple ID).
        public static let wrongAppAppleID = Self(rawValue: "wrong_app_apple_id")
        /// The payload comes from an environment this verifier does not accept.
        public static let wrongEnvironment = Self(rawValue: "wrong_environment")
        /// An OCSP responder says a certificate of the chain is revoked.
        public static let certificateRevoked = Self(rawValue: "certificate_revoked")
        /// An OCSP responder answered, but its answer could not be used.
        public static let revocationCheckFailed = Self(rawValue: "revocation_check_failed")
        /// The OCSP responder could not be reached: retryable.
        public static let revocationCheckUnavailable = Self(rawValue: "revocation_check_unavailable")
        /// An identifier the payload carries is empty or malformed: a transaction id that is not
        /// decimal digits, a product or bundle id with characters App Store ids do not have, a
        /// `notificationUUID` that is not a UUID. Apple's libraries do not check these.
        public static let invalidIdentifier = Self(rawValue: "invalid_identifier")
        /// Not an app receipt: not base64 where base64 is expected, not BER, not PKCS#7
        /// `SignedData` over `pkcs7-data`, not exactly one signer, or a signer whose
        /// certificate the receipt does not carry.
        public static let malformedReceipt = Self(rawValue: "malformed_receipt")
        /// The receipt is for another version of the app (`CFBundleVersion`).
        public static let wrongAppVersion = Self(rawValue: "wrong_app_version")
        /// The receipt's hash does not match this device's identifier: it was issued to
        /// another device, or carries no hash.
        public static let deviceHashMismatch = Self(rawValue: "device_hash_mismatch")

        /// Every code: the JWS codes in the order the verifier checks them, then the codes only
        /// receipts have.
        public static let all: [Code] = [
            .inputTooLarge, .malformedJWS, .unsupportedAlgorithm, .badCertificateChainLength,
            .malformedCertificate, .untrustedChain, .unhandledCriticalExtension, .missingAppleOID,
            .invalidCertificateChain, .badSignature, .payloadNotDecodable, .certificateExpired,
            .certificateNotYetValid, .certificateRevoked, .revocationCheckFailed,
            .revocationCheckUnavailable, .wrongBundleID, .wrongAppAppleID, .wrongEnvironment,
            .invalidIdentifier,
            .malformedReceipt, .wrongAppVersion, .deviceHashMismatch,
        ]

        /// The status Apple's Swift library (`VerificationError`) reports for the same input;
        /// `VALID` where it accepts the input (it does not check identifiers).
        public var appleSwiftStatus: String {
            switch self {
            case .invalidIdentifier:
                return "VALID"
            case .inputTooLarge, .malformedJWS, .unsupportedAlgorithm, .badCertificateChainLength,
                .badSignature, .payloadNotDecodable:
                return "INVALID_JWT_FORMAT"
            case .malformedCertificate:
                return "INVALID_CERTIFICATE"
            case .wrongBundleID, .wrongAppAppleID:
                return "INVALID_APP_IDENTIFIER"
            case .wrongEnvironment:
                return "INVALID_ENVIRONMENT"
            case .revocationCheckUnavailable:
                return "RETRYABLE_VERIFICATION_FAILURE"
            default:
                return "VERIFICATION_FAILURE"
            }
        }

        /// The status Apple's Python library (`VerificationStatus`) reports for the same input;
        /// `VALID` where it accepts the input (it does not check identifiers).
        public var applePythonStatus: String {
            switch self {
            case .badCertificateChainLength:
                return "INVALID_CHAIN_LENGTH"
            // The Python library has no status for a malformed token: it fails verification.
            case .inputTooLarge, .malformedJWS, .unsupportedAlgorithm, .badSignature, .payloadNotDecodable:
                return "VERIFICATION_FAILURE"
            default:
                return appleSwiftStatus
            }
        }
    }
}
