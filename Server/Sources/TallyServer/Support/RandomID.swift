/// Random identifiers: request IDs, users' and orders' ids; spends', reservations' and events'
/// ids begin with their time.
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
        return uuidText(high: (high & ~0xF000) | 0x4000, low: low)  // version 4
    }

    /// A version 7 UUID (RFC 9562) in lower case: `millis` in its first 48 bits, then 74 random
    /// ones. Rows keyed by it are added at the end of their key's index, where a batch of writes
    /// shares a page, instead of one random page each.
    /// - Parameter millis: epoch milliseconds; below zero counts as zero.
    static func uuidV7(millis: Int64) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64, low = generator.next() as UInt64
        let high = (UInt64(max(0, millis)) & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | (random & 0x0FFF)
        return uuidText(high: high, low: low)
    }

    /// The text of a UUID from its two halves, with the RFC 4122 variant set in the second.
    private static func uuidText(high: UInt64, low: UInt64) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
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

    /// Crockford's base 32 alphabet in lower case, a character for each 5 bits.
    private static let base32Digits: [UInt8] = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// `count` random characters of Crockford's base 32 alphabet in lower case (5 bits each),
    /// from one call per 12 characters.
    static func base32(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String(unsafeUninitializedCapacity: count) { buffer in
            var bits: UInt64 = 0
            var left = 0
            for index in 0..<count {
                if left < 5 {
                    bits = generator.next()
                    left = 64
                }
                buffer[index] = base32Digits[Int(bits & 31)]
                bits >>= 5
                left -= 5
            }
            return count
        }
    }

    /// 26 characters of Crockford's base 32 in lower case: `millis` in the first 10 (50 bits,
    /// most significant first, so that ids sort by time), then 16 random ones (80 bits).
    /// - Parameter millis: epoch milliseconds; below zero counts as zero.
    static func timeOrdered(millis: Int64) -> String {
        let time = UInt64(max(0, millis))
        return String(unsafeUninitializedCapacity: 10) { buffer in
            for index in 0..<10 { buffer[index] = base32Digits[Int((time >> UInt64(45 - 5 * index)) & 31)] }
            return 10
        } + base32(count: 16)
    }
}
