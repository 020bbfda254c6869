public import Foundation

/// A signed app transaction's payload: Apple's `AppTransaction`, the record of the app's
/// own purchase or download.
public struct AppTransactionPayload: AppStoreSignedPayload {
    public static var kind: SignedDataKind { .appTransaction }
    /// App transactions carry no `signedDate`; Apple dates them by `receiptCreationDate`.
    public var validationDate: Date? { receiptCreationDate }

    /// The server environment that signed the app transaction.
    public var receiptType: AppStoreEnvironment?
    /// The app's Apple identifier (absent in Xcode and the sandbox).
    public var appAppleID: Int64?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The app version the app transaction is for.
    public var applicationVersion: String?
    /// The App Store's identifier of the app version.
    public var versionExternalIdentifier: Int64?
    /// When the App Store created the app transaction.
    public var receiptCreationDate: Date?
    /// When the user first bought or downloaded the app.
    public var originalPurchaseDate: Date?
    /// The app version the user first bought or downloaded.
    public var originalApplicationVersion: String?
    /// Device verification data.
    public var deviceVerification: String?
    /// The nonce of ``deviceVerification``.
    public var deviceVerificationNonce: String?
    /// When the user pre-ordered the app.
    public var preorderDate: Date?
    /// The app download's transaction identifier.
    public var appTransactionID: String?
    /// The platform of the first purchase.
    public var originalPlatform: PurchasePlatform?
    /// When StoreKit requested the app transaction, in app transactions from the device.
    public var requestDate: Date?

    /// An empty payload; set the fields you need.
    public init() {}
}
