/// Strict base64 for JWS segments (base64url, RFC 7515 §2) and `x5c` entries (standard
/// base64, RFC 7515 §4.1.6).
///
/// Strict means: only the alphabet's characters, padding only where the alphabet allows it
/// and only at the end, and unused trailing bits zero, so one byte string has exactly one
/// accepted spelling.
public enum Base64: Sendable {
    /// Which 64 characters encode the values.
    public enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 - _`, no padding.
        case url
        /// `A–Z a–z 0–9 + /`, padding optional.
        case standard
    }

    private static let invalid: UInt8 = 0xFF

    private static let urlTable: [UInt8] = table(for: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8))
    private static let standardTable: [UInt8] = table(for: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8))

    private static func table(for alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }

    /// Decodes `input`, or returns `nil` when it is not strict base64 of the alphabet.
    public static func decode<Input: Collection<UInt8>>(_ input: Input, alphabet: Alphabet) -> [UInt8]? {
        if let decoded = input.withContiguousStorageIfAvailable({ decode(buffer: $0, alphabet: alphabet) }) {
            return decoded
        }
        return Array(input).withUnsafeBufferPointer { decode(buffer: $0, alphabet: alphabet) }
    }

    private static func decode(buffer: UnsafeBufferPointer<UInt8>, alphabet: Alphabet) -> [UInt8]? {
        var count = buffer.count
        if alphabet == .standard, count % 4 == 0 {
            // Up to two '=' of padding, only at the end.
            if count > 0, buffer[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0, buffer[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        if count % 4 == 1 { return nil }
        let table = alphabet == .url ? urlTable : standardTable

        var output = [UInt8]()
        output.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<count {
            let value = table[Int(buffer[index])]
            guard value != invalid else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero: otherwise two spellings would decode to the same bytes.
        if bits > 0, accumulator & ((1 << UInt32(bits)) - 1) != 0 { return nil }
        return output
    }

    /// Encodes `bytes` without padding in the base64url alphabet.
    public static func encodeURL(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int((accumulator >> UInt32(bits)) & 0x3F)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
