/// The attribute types of an app receipt's payload, as Apple numbers them.
///
/// The payload is `SET OF ReceiptAttribute`, where
/// `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`;
/// each in-app purchase (type 17) holds another such set. One list for the decoder and for
/// whatever writes receipts.
public enum ReceiptAttributeType: Sendable {
    /// The environment, UTF8String (undocumented): `Production`, `ProductionSandbox`, `Xcode`, ….
    public static let environment = 0
    /// The App Apple ID, INTEGER (undocumented).
    public static let appAppleID = 1
    /// The bundle identifier, UTF8String; its encoded bytes enter the device hash.
    public static let bundleID = 2
    /// The app version, UTF8String.
    public static let applicationVersion = 3
    /// An opaque value, raw bytes.
    public static let opaqueValue = 4
    /// SHA-1 of device identifier, opaque value and bundle identifier, raw 20 bytes.
    public static let sha1Hash = 5
    /// The creation date, IA5String in RFC 3339.
    public static let creationDate = 12
    /// One in-app purchase, a set of attributes.
    public static let inAppPurchase = 17
    /// The app's original purchase date, IA5String.
    public static let originalPurchaseDate = 18
    /// The original app version, UTF8String.
    public static let originalApplicationVersion = 19
    /// The receipt's expiration date (Volume Purchase Program), IA5String.
    public static let expirationDate = 21

    /// Quantity, INTEGER.
    public static let quantity = 1701
    /// Product identifier, UTF8String.
    public static let productID = 1702
    /// Transaction identifier, UTF8String.
    public static let transactionID = 1703
    /// Purchase date, IA5String.
    public static let purchaseDate = 1704
    /// Original transaction identifier, UTF8String.
    public static let originalTransactionID = 1705
    /// Original purchase date, IA5String.
    public static let inAppOriginalPurchaseDate = 1706
    /// Product type, INTEGER (undocumented): 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable.
    public static let productType = 1707
    /// Subscription expiration date, IA5String.
    public static let expiresDate = 1708
    /// Web order line item identifier, INTEGER.
    public static let webOrderLineItemID = 1711
    /// Cancellation date, IA5String.
    public static let cancellationDate = 1712
    /// Free trial period, INTEGER 0 or 1.
    public static let isTrialPeriod = 1713
    /// Introductory offer period, INTEGER 0 or 1.
    public static let isInIntroOfferPeriod = 1719
    /// Promotional offer identifier, UTF8String.
    public static let promotionalOfferID = 1721
}
