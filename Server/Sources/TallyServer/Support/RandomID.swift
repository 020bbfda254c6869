/// Random identifiers: request IDs, spends', users' and orders' ids, events'.
///
/// Each call to the system's generator is a `getrandom` system call on Linux, and Foundation's
/// `UUID()` opens, reads and closes `/dev/urandom`: an identifier takes its bits from as few
/// calls as it needs (an event's id took one call per character, 26 for each event of a write).
enum RandomID {
    /// A random (version 4) UUID in lower case, as `UUID().uuidString.lowercased()` writes it,
    /// from two calls.
    static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                text[position] = digits[Int(byte >> 4)]
                text[position + 1] = digits[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }

    /// `count` random characters of Crockford's base 32 alphabet in lower case (5 bits each),
    /// from one call per 12 characters.
    static func base32(count: Int) -> String {
        let alphabet: [UInt8] = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
        var generator = SystemRandomNumberGenerator()
        return String(unsafeUninitializedCapacity: count) { buffer in
            var bits: UInt64 = 0
            var left = 0
            for index in 0..<count {
                if left < 5 {
                    bits = generator.next()
                    left = 64
                }
                buffer[index] = alphabet[Int(bits & 31)]
                bits >>= 5
                left -= 5
            }
            return count
        }
    }
}
