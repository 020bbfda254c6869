/// The identifier of a request: the caller's `X-Request-Id` when it is short and plain,
/// otherwise a new one. It is echoed in the answer, in error bodies and in every log line
/// of the request, so what is accepted must be safe in all three.
enum RequestID {
    static let maximumLength = 64

    /// Whether a caller's identifier is kept: 1 to 64 ASCII letters, digits, `-`, `_` or `.`.
    static func accepts(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        return !utf8.isEmpty && utf8.count <= maximumLength
            && utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    return true
                default:
                    return false
                }
            }
    }

    /// A random (version 4) UUID, lower case. `UUID()` on Linux opens, reads and closes
    /// /dev/urandom on every call; the system generator is one `getrandom` call.
    static func new() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
