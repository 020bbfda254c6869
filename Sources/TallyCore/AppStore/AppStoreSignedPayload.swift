public import Foundation

/// The decoded payload of one kind of App Store signed data.
///
/// The verifier reads ``validationDate`` to choose the time at which the certificate chain
/// must be valid when it checks offline.
public protocol AppStoreSignedPayload: Codable, Hashable, Sendable {
    /// The kind of signed data this payload is, for messages and reports.
    static var kind: SignedDataKind { get }

    /// The date the App Store signed the payload: `signedDate`, or `receiptCreationDate`
    /// for an app transaction and an app receipt.
    var validationDate: Date? { get }
}

/// The kinds of App Store signed data.
public struct SignedDataKind: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A transaction (`JWSTransaction`).
    public static let transaction = Self(rawValue: "transaction")
    /// Subscription renewal information (`JWSRenewalInfo`).
    public static let renewalInfo = Self(rawValue: "renewal")
    /// An App Store Server Notification V2 (`signedPayload`).
    public static let notification = Self(rawValue: "notification")
    /// An app transaction (`AppTransaction`).
    public static let appTransaction = Self(rawValue: "app-transaction")
    /// A Retention Messaging real-time request.
    public static let realtimeRequest = Self(rawValue: "realtime-request")
    /// A legacy app receipt (PKCS#7, StoreKit 1).
    public static let appReceipt = Self(rawValue: "app-receipt")
}
