public import Foundation

/// A Retention Messaging real-time request's payload: Apple's `DecodedRealtimeRequestBody`.
public struct RealtimeRequestPayload: AppStoreSignedPayload {
    public static var kind: SignedDataKind { .realtimeRequest }
    public var validationDate: Date? { signedDate }

    /// The transaction identifier of the original purchase.
    public var originalTransactionID: String?
    /// The app's Apple identifier.
    public var appAppleID: Int64?
    /// The subscription product.
    public var productID: String?
    /// The customer's locale, such as `en-US`.
    public var userLocale: String?
    /// The identifier of the request.
    public var requestIdentifier: String?
    /// The server environment.
    public var environment: AppStoreEnvironment?
    /// When the App Store signed this payload.
    public var signedDate: Date?

    /// An empty payload; set the fields you need.
    public init() {}
}
