import Crypto
public import Foundation
public import TallyCore
public import TallyVerify

/// Writes an ``AppReceipt`` as the App Store does: a DER `SET OF ReceiptAttribute`, one
/// attribute per field, each in-app purchase a nested set under type 17. A
/// ``TestReceiptAuthority`` signs the result.
///
/// ```swift
/// var receipt = AppReceipt()
/// receipt.bundleID = "com.example.app"
/// receipt.environment = .sandbox
/// receipt.receiptCreationDate = now
/// var builder = ReceiptBuilder(receipt)
/// builder.bind(to: DeviceIdentifier(uuid: device), opaqueValue: Array(repeating: 7, count: 16))
/// let bytes = try authority.sign(builder)
/// ```
public struct ReceiptBuilder: Sendable {
    /// The fields to write; `nil` fields are left out.
    public var receipt: AppReceipt
    /// Attributes written as given beside the modelled ones: types the verifier does not
    /// know, or a known type encoded wrongly on purpose.
    public var extraAttributes: [ReceiptAttribute]
    /// Attributes written as given into every in-app purchase.
    public var extraInAppAttributes: [ReceiptAttribute]
    /// The offset from UTC, in seconds, dates are written with: 0 writes `Z`, as the App
    /// Store does; Xcode writes its Mac's offset, `+0100`.
    public var dateOffset: Int

    /// A builder for `receipt`.
    public init(_ receipt: AppReceipt = AppReceipt()) {
        self.receipt = receipt
        self.extraAttributes = []
        self.extraInAppAttributes = []
        self.dateOffset = 0
    }

    /// Sets the opaque value and the hash that bind the receipt to `device`, as the App Store
    /// does for the device it issues the receipt to. Set ``AppReceipt/bundleID`` first.
    public mutating func bind(to device: DeviceIdentifier, opaqueValue: [UInt8]) {
        receipt.opaqueValue = Data(opaqueValue)
        receipt.sha1Hash = Data(Self.deviceHash(device: device, opaqueValue: opaqueValue, bundleID: receipt.bundleID ?? ""))
    }

    /// SHA-1 of the device identifier, the opaque value and the bundle identifier's encoded
    /// value (its UTF8String tag and length included), as the receipt's type 5 holds it.
    public static func deviceHash(device: DeviceIdentifier, opaqueValue: [UInt8], bundleID: String) -> [UInt8] {
        var hasher = Insecure.SHA1()
        hasher.update(data: device.bytes)
        hasher.update(data: opaqueValue)
        hasher.update(data: ASN1Writer.utf8String(bundleID))
        return Array(hasher.finalize())
    }

    /// The payload: the DER attribute set, ready to be signed.
    public func payload() -> [UInt8] {
        var attributes: [ReceiptAttribute] = []
        let raw = receipt.rawEnvironment ?? receipt.environment.map(Self.rawEnvironment)
        if let raw { attributes.append(.utf8(type: ReceiptAttributeType.environment, raw)) }
        if let id = receipt.appAppleID { attributes.append(.integer(type: ReceiptAttributeType.appAppleID, id)) }
        if let id = receipt.bundleID { attributes.append(.utf8(type: ReceiptAttributeType.bundleID, id)) }
        if let version = receipt.applicationVersion { attributes.append(.utf8(type: ReceiptAttributeType.applicationVersion, version)) }
        if let opaque = receipt.opaqueValue { attributes.append(ReceiptAttribute(type: ReceiptAttributeType.opaqueValue, value: Array(opaque))) }
        if let hash = receipt.sha1Hash { attributes.append(ReceiptAttribute(type: ReceiptAttributeType.sha1Hash, value: Array(hash))) }
        if let date = receipt.receiptCreationDate { attributes.append(dateAttribute(ReceiptAttributeType.creationDate, date)) }
        if let date = receipt.originalPurchaseDate { attributes.append(dateAttribute(ReceiptAttributeType.originalPurchaseDate, date)) }
        if let version = receipt.originalApplicationVersion {
            attributes.append(.utf8(type: ReceiptAttributeType.originalApplicationVersion, version))
        }
        if let date = receipt.expirationDate { attributes.append(dateAttribute(ReceiptAttributeType.expirationDate, date)) }
        for purchase in receipt.inAppPurchases {
            attributes.append(ReceiptAttribute(type: ReceiptAttributeType.inAppPurchase, value: inAppPayload(purchase)))
        }
        return Self.set(attributes + extraAttributes)
    }

    /// ``receipt`` as ``payload()`` lists it, which is what a verifier decodes: the in-app
    /// purchases in the order DER puts the elements of a `SET OF` (by their encodings).
    public var written: AppReceipt {
        var written = receipt
        written.inAppPurchases = receipt.inAppPurchases
            .map { purchase in
                let attribute = ASN1Writer.sequence([
                    ASN1Writer.integer(Int64(ReceiptAttributeType.inAppPurchase)), ASN1Writer.integer(1),
                    ASN1Writer.octetString(inAppPayload(purchase)),
                ])
                return (attribute, purchase)
            }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            .map(\.1)
        return written
    }

    private func inAppPayload(_ purchase: InAppPurchaseReceipt) -> [UInt8] {
        var attributes: [ReceiptAttribute] = []
        if let quantity = purchase.quantity { attributes.append(.integer(type: ReceiptAttributeType.quantity, Int64(quantity))) }
        if let id = purchase.productID { attributes.append(.utf8(type: ReceiptAttributeType.productID, id)) }
        if let id = purchase.transactionID { attributes.append(.utf8(type: ReceiptAttributeType.transactionID, id)) }
        if let date = purchase.purchaseDate { attributes.append(dateAttribute(ReceiptAttributeType.purchaseDate, date)) }
        if let id = purchase.originalTransactionID { attributes.append(.utf8(type: ReceiptAttributeType.originalTransactionID, id)) }
        if let date = purchase.originalPurchaseDate { attributes.append(dateAttribute(ReceiptAttributeType.inAppOriginalPurchaseDate, date)) }
        if let type = purchase.rawProductType ?? purchase.productType.flatMap(Self.rawProductType) {
            attributes.append(.integer(type: ReceiptAttributeType.productType, type))
        }
        if let date = purchase.expiresDate { attributes.append(dateAttribute(ReceiptAttributeType.expiresDate, date)) }
        if let id = purchase.webOrderLineItemID { attributes.append(.integer(type: ReceiptAttributeType.webOrderLineItemID, id)) }
        // The App Store writes an empty date when a purchase was not cancelled.
        attributes.append(
            purchase.cancellationDate.map { dateAttribute(ReceiptAttributeType.cancellationDate, $0) }
                ?? .ia5(type: ReceiptAttributeType.cancellationDate, ""))
        if let flag = purchase.isTrialPeriod { attributes.append(.integer(type: ReceiptAttributeType.isTrialPeriod, flag ? 1 : 0)) }
        if let flag = purchase.isInIntroOfferPeriod {
            attributes.append(.integer(type: ReceiptAttributeType.isInIntroOfferPeriod, flag ? 1 : 0))
        }
        if let id = purchase.promotionalOfferID { attributes.append(.utf8(type: ReceiptAttributeType.promotionalOfferID, id)) }
        return Self.set(attributes + extraInAppAttributes)
    }

    private func dateAttribute(_ type: Int, _ date: Date) -> ReceiptAttribute {
        .ia5(type: type, Self.rfc3339(date, offset: dateOffset))
    }

    private static func set(_ attributes: [ReceiptAttribute]) -> [UInt8] {
        ASN1Writer.set(
            attributes.map { attribute in
                ASN1Writer.sequence([
                    ASN1Writer.integer(Int64(attribute.type)),
                    ASN1Writer.integer(Int64(attribute.version)),
                    ASN1Writer.octetString(attribute.value),
                ])
            })
    }

    /// The type 0 value for an environment: `Production`, `ProductionSandbox`, `Xcode`, or the raw value.
    static func rawEnvironment(_ environment: AppStoreEnvironment) -> String {
        switch environment {
        case .production: return "Production"
        case .sandbox: return "ProductionSandbox"
        default: return environment.rawValue
        }
    }

    static func rawProductType(_ type: AppStoreProductType) -> Int64? {
        switch type {
        case .nonConsumable: return 0
        case .consumable: return 1
        case .nonRenewingSubscription: return 2
        case .autoRenewableSubscription: return 3
        default: return nil
        }
    }

    /// `2024-06-02T10:00:00Z`, or with `offset` seconds east of UTC, `2024-06-02T11:00:00+0100`.
    public static func rfc3339(_ date: Date, offset: Int = 0) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let civil = CivilDate(daysSince1970: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let zone: String
        if offset == 0 {
            zone = "Z"
        } else {
            let minutes = abs(offset) / 60
            zone = (offset < 0 ? "-" : "+") + two(minutes / 60) + two(minutes % 60)
        }
        let yearText = String(repeating: "0", count: max(0, 4 - String(civil.year).count)) + String(civil.year)
        return "\(yearText)-\(two(civil.month))-\(two(civil.day))T\(two(time / 3600)):\(two(time % 3600 / 60)):\(two(time % 60))\(zone)"
    }
}

/// One receipt attribute as written: `SEQUENCE { type, version, OCTET STRING value }`.
public struct ReceiptAttribute: Hashable, Sendable {
    /// The attribute type (``ReceiptAttributeType``).
    public var type: Int
    /// The attribute version; the App Store writes 1 for most.
    public var version: Int
    /// The OCTET STRING's content: an encoded ASN.1 value, or raw bytes for opaque fields.
    public var value: [UInt8]

    /// An attribute with `value` as the OCTET STRING's content.
    public init(type: Int, version: Int = 1, value: [UInt8]) {
        self.type = type
        self.version = version
        self.value = value
    }

    /// A UTF8String attribute.
    public static func utf8(type: Int, _ text: String) -> Self {
        Self(type: type, value: ASN1Writer.utf8String(text))
    }

    /// An IA5String attribute, as dates are written.
    public static func ia5(type: Int, _ text: String) -> Self {
        Self(type: type, value: ASN1Writer.ia5String(text))
    }

    /// An INTEGER attribute.
    public static func integer(type: Int, _ value: Int64) -> Self {
        Self(type: type, value: ASN1Writer.integer(value))
    }
}
