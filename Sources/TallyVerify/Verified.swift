public import Foundation
public import TallyCore

/// Signed data that passed verification, with what it was verified against.
public struct Verified<Payload: AppStoreSignedPayload>: Sendable, Hashable {
    /// The decoded payload.
    public let payload: Payload
    /// The payload exactly as signed, for audit logs and fields this version does not model:
    /// JSON for a JWS, the ASN.1 attribute set for an app receipt.
    public let rawPayload: Data
    /// The time at which the certificates were found valid.
    public let validationTime: Date
    /// What vouched for the signature.
    public let origin: SignatureOrigin
}

/// What vouched for a verified signature.
public enum SignatureOrigin: String, Hashable, Sendable, Codable {
    /// A chain to a configured root, with Apple's OIDs.
    case certificateChain = "certificate_chain"
    /// Xcode's self-signed certificate: integrity only, accepted only for Xcode data, when the
    /// Xcode environment is configured (and, for receipts, the certificate is a configured root).
    case xcodeSelfSigned = "xcode_self_signed"
}

/// A verified notification, with the signed data inside it when that was asked for.
public struct VerifiedNotification: Sendable, Hashable {
    /// The notification itself.
    public let notification: Verified<NotificationPayload>
    /// `data.signedTransactionInfo`, verified.
    public let transaction: Verified<TransactionPayload>?
    /// `data.signedRenewalInfo`, verified.
    public let renewalInfo: Verified<RenewalInfoPayload>?
    /// `appData.signedAppTransactionInfo`, verified.
    public let appTransaction: Verified<AppTransactionPayload>?

    /// The notification's payload.
    public var payload: NotificationPayload { notification.payload }
}
