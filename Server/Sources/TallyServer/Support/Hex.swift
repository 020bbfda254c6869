/// Lower-case hexadecimal text of bytes: the form of token hashes and request hashes.
///
/// A lookup table rather than `String(format: "%02x")`, which goes through Foundation's
/// formatter once per byte, on the path of every authenticated request.
enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The bytes as `2 × count` lower-case hexadecimal digits.
    static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
