public import Foundation

/// A legacy App Store app receipt's payload (StoreKit 1, `Bundle.main.appStoreReceiptURL`):
/// the app's own purchase and one entry per in-app purchase.
///
/// Apple writes it as a set of ASN.1 attributes inside a PKCS#7 envelope; `TallyVerify`
/// decodes it only after the envelope's signature and chain are verified. Fields a receipt
/// does not carry stay `nil`; attribute types this version does not model are skipped.
public struct AppReceipt: AppStoreSignedPayload {
    public static var kind: SignedDataKind { .appReceipt }
    /// Receipts are dated by their creation date, the time their chain is validated at.
    public var validationDate: Date? { receiptCreationDate }

    /// The environment, mapped from ``rawEnvironment``: `Production` → production,
    /// `ProductionSandbox` and `Sandbox` → sandbox, `Xcode` → Xcode; any other value is kept
    /// as it is written.
    public var environment: AppStoreEnvironment?
    /// The environment exactly as the receipt writes it (attribute type 0, undocumented).
    public var rawEnvironment: String?
    /// The app's Apple identifier (type 1, undocumented; 0 or absent outside Production).
    public var appAppleID: Int64?
    /// The bundle identifier (type 2).
    public var bundleID: String?
    /// The app version the receipt was issued for, `CFBundleVersion` on iOS (type 3).
    public var applicationVersion: String?
    /// An opaque value used with the device identifier in ``sha1Hash`` (type 4).
    public var opaqueValue: Data?
    /// SHA-1 of the device identifier, ``opaqueValue`` and the bundle identifier (type 5).
    public var sha1Hash: Data?
    /// When the App Store created the receipt (type 12); the chain is validated at this time.
    public var receiptCreationDate: Date?
    /// When the user first bought or downloaded the app (type 18).
    public var originalPurchaseDate: Date?
    /// The app version the user first bought or downloaded (type 19; `1.0` in the sandbox).
    public var originalApplicationVersion: String?
    /// When the receipt expires, for Volume Purchase Program receipts only (type 21).
    public var expirationDate: Date?
    /// The in-app purchases (type 17, one attribute each), in the order the receipt lists them.
    public var inAppPurchases: [InAppPurchaseReceipt]

    /// An empty receipt; set the fields you need.
    public init() {
        inAppPurchases = []
    }

    /// The environment a receipt's type 0 value names: `Production` (also `ProductionVPP`),
    /// `ProductionSandbox`, `Sandbox` (also `ProductionVPPSandbox`), `Xcode`; other values as written.
    public static func environment(forRawValue raw: String) -> AppStoreEnvironment {
        switch raw {
        case "Production", "ProductionVPP": return .production
        case "ProductionSandbox", "Sandbox", "ProductionVPPSandbox": return .sandbox
        case "Xcode": return .xcode
        default: return AppStoreEnvironment(rawValue: raw)
        }
    }
}

/// One in-app purchase in an ``AppReceipt`` (the attribute set inside type 17).
public struct InAppPurchaseReceipt: Codable, Hashable, Sendable {
    /// How many items were bought (type 1701).
    public var quantity: Int?
    /// The product identifier (type 1702).
    public var productID: String?
    /// The transaction identifier, the same one StoreKit 2 and the App Store Server API use (type 1703).
    public var transactionID: String?
    /// When the App Store charged the user, or restored or renewed the purchase (type 1704).
    public var purchaseDate: Date?
    /// The transaction identifier of the original purchase (type 1705).
    public var originalTransactionID: String?
    /// The date of the original purchase (type 1706).
    public var originalPurchaseDate: Date?
    /// The kind of product, mapped from ``rawProductType``: 0 non-consumable, 1 consumable,
    /// 2 non-renewing subscription, 3 auto-renewable subscription.
    public var productType: AppStoreProductType?
    /// The product type as the receipt writes it (type 1707, undocumented).
    public var rawProductType: Int64?
    /// When an auto-renewable subscription expires (type 1708).
    public var expiresDate: Date?
    /// The subscription's web order line item identifier (type 1711).
    public var webOrderLineItemID: Int64?
    /// When Apple customer support refunded the purchase (type 1712).
    public var cancellationDate: Date?
    /// Whether the subscription period is a free trial (type 1713).
    public var isTrialPeriod: Bool?
    /// Whether the subscription period is an introductory offer (type 1719).
    public var isInIntroOfferPeriod: Bool?
    /// The promotional offer's identifier (type 1721).
    public var promotionalOfferID: String?

    /// An empty in-app purchase; set the fields you need.
    public init() {}

    /// The product type a receipt's type 1707 value names, or `nil` for values Apple has not used.
    public static func productType(forRawValue raw: Int64) -> AppStoreProductType? {
        switch raw {
        case 0: return .nonConsumable
        case 1: return .consumable
        case 2: return .nonRenewingSubscription
        case 3: return .autoRenewableSubscription
        default: return nil
        }
    }
}
