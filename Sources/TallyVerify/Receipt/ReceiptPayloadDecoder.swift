import Foundation
import TallyCore

/// Decodes a receipt's signed content, the attribute set, into an ``AppReceipt``.
///
/// Known attributes must have the type Apple gives them (UTF8String or IA5String for text,
/// IA5String in RFC 3339 for dates, INTEGER for numbers, 0 or 1 for flags) and appear once;
/// an empty date means absent. Unknown attribute types are skipped.
enum ReceiptPayloadDecoder {
    /// A decoded payload and the bundle identifier's value bytes as they are encoded, which
    /// the device hash covers.
    struct Decoded: Sendable {
        var receipt: AppReceipt
        var bundleIDField: [UInt8]?
    }

    /// - Throws: ``BERError`` saying which attribute is wrong and how.
    static func decode(_ content: [UInt8]) throws(BERError) -> Decoded {
        var work = 0
        return try decode(content, work: &work)
    }

    /// Decodes and counts the element headers read, in-app purchases included, also when
    /// decoding fails.
    /// - Throws: ``BERError`` saying which attribute is wrong and how.
    static func decode(_ content: [UInt8], work: inout Int) throws(BERError) -> Decoded {
        var reader = BERReader(content)
        defer { work = reader.work }
        let root = try reader.root()
        guard root.isUniversal(17, constructed: true) else {
            throw BERError(offset: 0, reason: "payload is \(root.name), not the SET of receipt attributes")
        }
        var receipt = AppReceipt()
        var bundleIDField: [UInt8]?
        var seen = Set<Int>()
        for attribute in try attributes(of: root, &reader) {
            if attribute.type != ReceiptAttributeType.inAppPurchase {
                guard seen.insert(attribute.type).inserted || !known.contains(attribute.type) else {
                    throw BERError(offset: attribute.offset, reason: "attribute type \(attribute.type) appears twice")
                }
            }
            let value = attribute.value
            switch attribute.type {
            case ReceiptAttributeType.environment:
                let raw = try string(value, attribute)
                receipt.rawEnvironment = raw
                receipt.environment = AppReceipt.environment(forRawValue: raw)
            case ReceiptAttributeType.appAppleID:
                receipt.appAppleID = try integer(value, attribute)
            case ReceiptAttributeType.bundleID:
                receipt.bundleID = try string(value, attribute)
                bundleIDField = value
            case ReceiptAttributeType.applicationVersion:
                receipt.applicationVersion = try string(value, attribute)
            case ReceiptAttributeType.opaqueValue:
                receipt.opaqueValue = Data(value)
            case ReceiptAttributeType.sha1Hash:
                receipt.sha1Hash = Data(value)
            case ReceiptAttributeType.creationDate:
                receipt.receiptCreationDate = try date(value, attribute)
            case ReceiptAttributeType.originalPurchaseDate:
                receipt.originalPurchaseDate = try date(value, attribute)
            case ReceiptAttributeType.originalApplicationVersion:
                receipt.originalApplicationVersion = try string(value, attribute)
            case ReceiptAttributeType.expirationDate:
                receipt.expirationDate = try date(value, attribute)
            case ReceiptAttributeType.inAppPurchase:
                receipt.inAppPurchases.append(try inAppPurchase(value, attribute, work: &reader))
            default:
                continue
            }
        }
        return Decoded(receipt: receipt, bundleIDField: bundleIDField)
    }

    private static let known: Set<Int> = [
        ReceiptAttributeType.environment, ReceiptAttributeType.appAppleID, ReceiptAttributeType.bundleID,
        ReceiptAttributeType.applicationVersion, ReceiptAttributeType.opaqueValue, ReceiptAttributeType.sha1Hash,
        ReceiptAttributeType.creationDate, ReceiptAttributeType.originalPurchaseDate,
        ReceiptAttributeType.originalApplicationVersion, ReceiptAttributeType.expirationDate,
        ReceiptAttributeType.quantity, ReceiptAttributeType.productID, ReceiptAttributeType.transactionID,
        ReceiptAttributeType.purchaseDate, ReceiptAttributeType.originalTransactionID,
        ReceiptAttributeType.inAppOriginalPurchaseDate, ReceiptAttributeType.productType,
        ReceiptAttributeType.expiresDate, ReceiptAttributeType.webOrderLineItemID,
        ReceiptAttributeType.cancellationDate, ReceiptAttributeType.isTrialPeriod,
        ReceiptAttributeType.isInIntroOfferPeriod, ReceiptAttributeType.promotionalOfferID,
    ]

    private struct Attribute {
        let type: Int
        let value: [UInt8]
        /// Where the attribute starts, in the outermost payload for app fields.
        let offset: Int
        /// The in-app purchase it sits in, for messages.
        let context: String
    }

    private static func attributes(of set: BERElement, _ reader: inout BERReader, context: String = "") throws(BERError) -> [Attribute] {
        var result: [Attribute] = []
        for element in try reader.children(of: set) {
            guard element.isUniversal(16, constructed: true) else {
                throw BERError(offset: element.start, reason: "\(context)receipt attribute is \(element.name), not a SEQUENCE")
            }
            let fields = try reader.children(of: element)
            guard fields.count == 3 else {
                throw BERError(offset: element.start, reason: "\(context)receipt attribute has \(fields.count) fields, not 3 (type, version, value)")
            }
            let type = try reader.integer(of: fields[0])
            _ = try reader.integer(of: fields[1])
            guard let small = Int(exactly: type) else {
                throw BERError(offset: element.start, reason: "\(context)attribute type \(type) out of range")
            }
            result.append(Attribute(type: small, value: try reader.octets(of: fields[2]), offset: element.start, context: context))
        }
        return result
    }

    private static func inAppPurchase(_ value: [UInt8], _ attribute: Attribute, work: inout BERReader) throws(BERError) -> InAppPurchaseReceipt {
        // One budget for the whole payload: the purchase gets what the payload has left.
        var reader = BERReader(value, maximumDepth: work.maximumDepth, workLimit: max(0, work.workLimit - work.work))
        defer { work.absorb(reader.work) }
        let root: BERElement
        do {
            root = try reader.root()
        } catch {
            throw BERError(offset: attribute.offset, reason: "in-app purchase (attribute type 17): \(error.reason)")
        }
        guard root.isUniversal(17, constructed: true) else {
            throw BERError(offset: attribute.offset, reason: "in-app purchase (attribute type 17) is \(root.name), not a SET")
        }
        var purchase = InAppPurchaseReceipt()
        var seen = Set<Int>()
        let context = "in-app purchase at byte \(attribute.offset): "
        let fields: [Attribute]
        do {
            fields = try attributes(of: root, &reader, context: context)
        } catch {
            throw BERError(offset: attribute.offset, reason: error.reason)
        }
        for field in fields {
            guard seen.insert(field.type).inserted || !known.contains(field.type) else {
                throw BERError(offset: attribute.offset, reason: "\(context)attribute type \(field.type) appears twice")
            }
            let value = field.value
            let located = Attribute(type: field.type, value: value, offset: attribute.offset, context: context)
            switch field.type {
            case ReceiptAttributeType.quantity:
                let quantity = try integer(value, located)
                guard let exact = Int(exactly: quantity) else {
                    throw BERError(offset: attribute.offset, reason: "\(context)quantity out of range")
                }
                purchase.quantity = exact
            case ReceiptAttributeType.productID:
                purchase.productID = try string(value, located)
            case ReceiptAttributeType.transactionID:
                purchase.transactionID = try string(value, located)
            case ReceiptAttributeType.purchaseDate:
                purchase.purchaseDate = try date(value, located)
            case ReceiptAttributeType.originalTransactionID:
                purchase.originalTransactionID = try string(value, located)
            case ReceiptAttributeType.inAppOriginalPurchaseDate:
                purchase.originalPurchaseDate = try date(value, located)
            case ReceiptAttributeType.productType:
                let raw = try integer(value, located)
                purchase.rawProductType = raw
                purchase.productType = InAppPurchaseReceipt.productType(forRawValue: raw)
            case ReceiptAttributeType.expiresDate:
                purchase.expiresDate = try date(value, located)
            case ReceiptAttributeType.webOrderLineItemID:
                purchase.webOrderLineItemID = try integer(value, located)
            case ReceiptAttributeType.cancellationDate:
                purchase.cancellationDate = try date(value, located)
            case ReceiptAttributeType.isTrialPeriod:
                purchase.isTrialPeriod = try flag(value, located)
            case ReceiptAttributeType.isInIntroOfferPeriod:
                purchase.isInIntroOfferPeriod = try flag(value, located)
            case ReceiptAttributeType.promotionalOfferID:
                purchase.promotionalOfferID = try string(value, located)
            default:
                continue
            }
        }
        return purchase
    }

    // MARK: - Values

    /// The single element a value holds.
    private static func element(_ value: [UInt8], _ attribute: Attribute) throws(BERError) -> (BERReader, BERElement) {
        var reader = BERReader(value, maximumDepth: 2)
        do {
            return (reader, try reader.root())
        } catch {
            throw BERError(offset: attribute.offset, reason: "\(attribute.context)attribute type \(attribute.type): \(error.reason)")
        }
    }

    private static func string(_ value: [UInt8], _ attribute: Attribute) throws(BERError) -> String {
        var (reader, element) = try element(value, attribute)
        // UTF8String, or IA5String, which some older receipts use for text.
        guard element.tagClass == 0, element.tagNumber == 12 || element.tagNumber == 22 else {
            throw BERError(offset: attribute.offset, reason: "\(attribute.context)attribute type \(attribute.type) is \(element.name), not a string")
        }
        let bytes: [UInt8]
        if element.constructed {
            guard let joined = try? reader.stringOctets(of: element) else {
                throw BERError(offset: attribute.offset, reason: "\(attribute.context)attribute type \(attribute.type) is a malformed constructed string")
            }
            bytes = joined
        } else {
            bytes = Array(reader.content(of: element))
        }
        // Decoding repairs ill-formed UTF-8 with U+FFFD, so a text whose bytes differ was not
        // valid (String(validating:as:) would say so directly, but needs iOS 18 and macOS 15).
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else {
            throw BERError(offset: attribute.offset, reason: "\(attribute.context)attribute type \(attribute.type) is not valid UTF-8")
        }
        return text
    }

    private static func date(_ value: [UInt8], _ attribute: Attribute) throws(BERError) -> Date? {
        let text = try string(value, attribute)
        if text.isEmpty { return nil }
        guard let date = ReceiptDate.parse(text.utf8) else {
            throw BERError(
                offset: attribute.offset, reason: "\(attribute.context)attribute type \(attribute.type) is '\(text.prefix(40))', not an RFC 3339 date")
        }
        return date
    }

    private static func integer(_ value: [UInt8], _ attribute: Attribute) throws(BERError) -> Int64 {
        let (reader, element) = try element(value, attribute)
        do {
            return try reader.integer(of: element)
        } catch {
            throw BERError(offset: attribute.offset, reason: "\(attribute.context)attribute type \(attribute.type): \(error.reason)")
        }
    }

    private static func flag(_ value: [UInt8], _ attribute: Attribute) throws(BERError) -> Bool {
        switch try integer(value, attribute) {
        case 0: return false
        case 1: return true
        case let other:
            throw BERError(offset: attribute.offset, reason: "\(attribute.context)attribute type \(attribute.type) is \(other), not 0 or 1")
        }
    }
}
