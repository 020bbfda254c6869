public import TallyCore

extension ReceiptVerifier {
    /// Reads the receipt inside a PKCS#7 envelope without checking its signature, chain or
    /// claims: to find which purchases it lists (a device routing a StoreKit 1 transaction),
    /// never to grant anything. What grants is ``verify(base64:deviceIdentifier:)``'s verdict.
    ///
    /// The same size and parsing limits apply as when verifying, so no input runs for long.
    /// - Parameter base64: standard base64 of the receipt, white space allowed.
    /// - Returns: the receipt, or `nil` when it is not a readable app receipt.
    public static func unverifiedReceipt(base64: String) -> AppReceipt? {
        guard base64.utf8.count <= Configuration.defaultMaximumLength / 3 * 4 + 4 + Configuration.defaultMaximumLength / 16,
            let bytes = bytes(base64: base64), bytes.count <= Configuration.defaultMaximumLength,
            let container = try? ReceiptContainer(bytes),
            let decoded = try? ReceiptPayloadDecoder.decode(container.content)
        else { return nil }
        return decoded.receipt
    }

    /// The bytes of standard base64 text, ignoring white space (line breaks included).
    static func bytes(base64 text: String) -> [UInt8]? {
        let text = text.utf8.filter { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        guard !text.isEmpty else { return nil }
        return Base64.decode(text, alphabet: .standard)
    }
}
