import TallyCore

/// The shape of an identifier in App Store signed data. A payload that carries one of these
/// fields with another shape is refused (``VerificationFailure/Code/invalidIdentifier``):
/// an empty transaction id would otherwise be credited once and collide with every later one.
///
/// The rules come from what the App Store and Xcode sign (Apple's real data and Xcode's
/// StoreKit testing data in the conformance vectors), and stay as permissive as they allow:
/// - transaction ids (`transactionId`, `originalTransactionId`): 1 to 20 decimal digits
///   (Apple's are 14 to 16 digits today, Xcode's start at `0`; 20 digits hold any 64-bit number);
/// - product and bundle ids: 1 to 255 ASCII letters, digits, `.`, `_` and `-` (App Store
///   Connect allows letters, digits, `.` and `_` in product ids, `-` in bundle ids);
/// - `notificationUUID`: a UUID, 8-4-4-4-12 hexadecimal digits.
///
/// A field that is absent is not checked here: Apple's own test payloads leave them out, and
/// what a caller needs (a transaction id to credit) it requires itself.
enum IdentifierRule: Sendable {
    case transactionID
    case productID
    case bundleID
    case uuid

    /// Whether `value` has this shape.
    func accepts(_ value: String) -> Bool {
        let utf8 = value.utf8
        switch self {
        case .transactionID:
            return (1...20).contains(utf8.count) && utf8.allSatisfy(Self.isDigit)
        case .productID, .bundleID:
            return (1...255).contains(utf8.count)
                && utf8.allSatisfy { byte in
                    Self.isDigit(byte) || Self.isLetter(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                }
        case .uuid:
            guard utf8.count == 36 else { return false }
            return utf8.enumerated().allSatisfy { offset, byte in
                [8, 13, 18, 23].contains(offset) ? byte == UInt8(ascii: "-") : Self.isHexDigit(byte)
            }
        }
    }

    /// What the value must look like, for the failure's reason.
    var expected: String {
        switch self {
        case .transactionID: "1 to 20 decimal digits"
        case .productID: "1 to 255 letters, digits, '.', '_' or '-'"
        case .bundleID: "1 to 255 letters, digits, '.', '_' or '-'"
        case .uuid: "a UUID (8-4-4-4-12 hexadecimal digits)"
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) }
}

/// One identifier field of a payload.
struct SignedIdentifier {
    /// The field's name in Apple's JSON.
    let field: String
    let value: String?
    let rule: IdentifierRule
}

extension SignedIdentifier {
    /// The failure for the first identifier that is present but malformed, or nil.
    static func failure(in identifiers: [SignedIdentifier]) -> VerificationFailure? {
        for identifier in identifiers {
            guard let value = identifier.value, !identifier.rule.accepts(value) else { continue }
            let shown = value.isEmpty ? "empty" : "'\(value.prefix(64))\(value.count > 64 ? "…" : "")'"
            return VerificationFailure(.invalidIdentifier, "\(identifier.field) is \(shown); expected \(identifier.rule.expected)")
        }
        return nil
    }
}

extension TransactionPayload {
    var signedIdentifiers: [SignedIdentifier] {
        [
            SignedIdentifier(field: "transactionId", value: transactionID, rule: .transactionID),
            SignedIdentifier(field: "originalTransactionId", value: originalTransactionID, rule: .transactionID),
            SignedIdentifier(field: "productId", value: productID, rule: .productID),
            SignedIdentifier(field: "bundleId", value: bundleID, rule: .bundleID),
        ]
    }
}

extension RenewalInfoPayload {
    var signedIdentifiers: [SignedIdentifier] {
        [
            SignedIdentifier(field: "originalTransactionId", value: originalTransactionID, rule: .transactionID),
            SignedIdentifier(field: "productId", value: productID, rule: .productID),
        ]
    }
}

extension NotificationPayload {
    var signedIdentifiers: [SignedIdentifier] {
        [SignedIdentifier(field: "notificationUUID", value: notificationUUID, rule: .uuid)]
    }
}

extension AppTransactionPayload {
    var signedIdentifiers: [SignedIdentifier] {
        [SignedIdentifier(field: "bundleId", value: bundleID, rule: .bundleID)]
    }
}

extension RealtimeRequestPayload {
    var signedIdentifiers: [SignedIdentifier] {
        [
            SignedIdentifier(field: "originalTransactionId", value: originalTransactionID, rule: .transactionID),
            SignedIdentifier(field: "productId", value: productID, rule: .productID),
        ]
    }
}
