import Foundation
import TallyCore
import TallyVerify

/// Verdicts for app receipts: the input is the receipt's PKCS#7 bytes or their base64.
///
/// A valid verdict has the shape a JWS's has; its payload is the decoded receipt, written
/// with the snake_case names of Apple's `verifyReceipt` where Apple has one (the command's
/// discussion lists them), dates in ISO 8601 UTC, and fields the receipt lacks left out.
struct ReceiptVerdicts: Verdicts {
    let verifier: ReceiptVerifier
    /// The identifier the receipt's hash must be computed with; unchecked when `nil`.
    let deviceIdentifier: DeviceIdentifier?

    func verify(_ input: ArraySlice<UInt8>, into output: inout [UInt8]) async -> Bool {
        switch await verifier.verify(bytesOrBase64: Array(input), deviceIdentifier: deviceIdentifier) {
        case .invalid(let failure):
            VerificationReport.writeInvalid(failure, into: &output)
            return false
        case .valid(let verified):
            VerificationReport.appendValidHead(kind: .receipt, origin: verified.origin, validationTime: verified.validationTime, to: &output)
            var unchecked: [String] = []
            if verifier.configuration.bundleID == .any { unchecked.append("bundle_id") }
            if verifier.configuration.appVersion == .any { unchecked.append("app_version") }
            if deviceIdentifier == nil { unchecked.append("device_id") }
            if !unchecked.isEmpty {
                output.append(contentsOf: #","unchecked":["#.utf8)
                for (index, name) in unchecked.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    JSONText.appendQuoted(name, to: &output)
                }
                output.append(UInt8(ascii: "]"))
            }
            output.append(contentsOf: #","payload":"#.utf8)
            Self.append(verified.payload, to: &output)
            output.append(contentsOf: "}\n".utf8)
            return true
        }
    }

    /// Appends `receipt` as the payload object.
    static func append(_ receipt: AppReceipt, to output: inout [UInt8]) {
        var object = JSONObjectWriter(opening: &output)
        object.string("receipt_type", receipt.rawEnvironment, to: &output)
        object.string("environment", receipt.environment?.rawValue, to: &output)
        object.integer("app_item_id", receipt.appAppleID, to: &output)
        object.string("bundle_id", receipt.bundleID, to: &output)
        object.string("application_version", receipt.applicationVersion, to: &output)
        object.data("opaque_value", receipt.opaqueValue, to: &output)
        object.data("sha1_hash", receipt.sha1Hash, to: &output)
        object.date("receipt_creation_date", receipt.receiptCreationDate, to: &output)
        object.date("original_purchase_date", receipt.originalPurchaseDate, to: &output)
        object.string("original_application_version", receipt.originalApplicationVersion, to: &output)
        object.date("expiration_date", receipt.expirationDate, to: &output)
        object.key("in_app", to: &output)
        output.append(UInt8(ascii: "["))
        for (index, purchase) in receipt.inAppPurchases.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            var item = JSONObjectWriter(opening: &output)
            item.integer("quantity", purchase.quantity, to: &output)
            item.string("product_id", purchase.productID, to: &output)
            item.string("transaction_id", purchase.transactionID, to: &output)
            item.string("original_transaction_id", purchase.originalTransactionID, to: &output)
            item.date("purchase_date", purchase.purchaseDate, to: &output)
            item.date("original_purchase_date", purchase.originalPurchaseDate, to: &output)
            item.integer("product_type", purchase.rawProductType, to: &output)
            item.date("expires_date", purchase.expiresDate, to: &output)
            item.string("web_order_line_item_id", purchase.webOrderLineItemID.map(String.init), to: &output)
            item.date("cancellation_date", purchase.cancellationDate, to: &output)
            item.bool("is_trial_period", purchase.isTrialPeriod, to: &output)
            item.bool("is_in_intro_offer_period", purchase.isInIntroOfferPeriod, to: &output)
            item.string("promotional_offer_id", purchase.promotionalOfferID, to: &output)
            output.append(UInt8(ascii: "}"))
        }
        output.append(contentsOf: "]}".utf8)
    }
}

/// Writes one JSON object's members, leaving out those without a value; the caller closes it.
private struct JSONObjectWriter {
    private var empty = true

    /// Opens an object in `output`.
    init(opening output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
    }

    /// Appends the member's name and colon, after a comma unless it is the first.
    mutating func key(_ name: String, to output: inout [UInt8]) {
        if !empty { output.append(UInt8(ascii: ",")) }
        empty = false
        JSONText.appendQuoted(name, to: &output)
        output.append(UInt8(ascii: ":"))
    }

    mutating func string(_ name: String, _ value: String?, to output: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &output)
        JSONText.appendQuoted(value, to: &output)
    }

    mutating func integer(_ name: String, _ value: (some BinaryInteger)?, to output: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &output)
        output.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ name: String, _ value: Bool?, to output: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &output)
        output.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func date(_ name: String, _ value: Date?, to output: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &output)
        output.append(UInt8(ascii: "\""))
        JSONText.appendISO8601(value, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Base64, as `JSONEncoder` writes `Data`.
    mutating func data(_ name: String, _ value: Data?, to output: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &output)
        JSONText.appendQuoted(value.base64EncodedString(), to: &output)
    }
}
