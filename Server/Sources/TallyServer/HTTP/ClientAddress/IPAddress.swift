#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, as the server compares, groups and prints client addresses.
///
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket reports for an
/// IPv4 peer) is the IPv4 address, so one client has one spelling.
///
/// ```swift
/// IPAddress("2001:DB8::1")?.description   // "2001:db8::1"
/// IPAddress("::ffff:192.0.2.1")?.isIPv4   // true
/// IPAddress("192.0.2.1:80")               // nil: a port is not part of an address
/// ```
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes of the IPv6 form (IPv4 as `::ffff:a.b.c.d`), as two big-endian halves.
    let high: UInt64
    let low: UInt64
    /// Whether this is an IPv4 address.
    public let isIPv4: Bool

    /// Parses an address in its standard text form: dotted decimal IPv4 (four parts, no
    /// leading zeros) or RFC 4291 IPv6. Zone identifiers (`%eth0`), ports, brackets and
    /// surrounding spaces are refused.
    /// - Parameter text: the address.
    public init?(_ text: some StringProtocol) {
        let utf8 = text.utf8
        // The longest IPv6 text is 45 characters; a NUL would end the C string early.
        guard !utf8.isEmpty, utf8.count <= 45, !utf8.contains(0) else { return nil }
        let string = String(text)
        if !utf8.contains(UInt8(ascii: ":")) {
            var address = in_addr()
            guard inet_pton(AF_INET, string, &address) == 1 else { return nil }
            let value = UInt32(bigEndian: address.s_addr)
            self.init(high: 0, low: 0x0000_FFFF_0000_0000 | UInt64(value), isIPv4: true)
            return
        }
        var address = in6_addr()
        guard inet_pton(AF_INET6, string, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        var high: UInt64 = 0, low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(bytes[index])
            low = low << 8 | UInt64(bytes[8 + index])
        }
        self.init(high: high, low: low, isIPv4: high == 0 && low >> 32 == 0x0000_FFFF)
    }

    init(high: UInt64, low: UInt64, isIPv4: Bool) {
        self.high = high
        self.low = low
        self.isIPv4 = isIPv4
    }

    /// The number of bits of this family: 32 or 128.
    public var bitCount: Int { isIPv4 ? 32 : 128 }

    /// The address with all but its first `length` bits (of its own family) set to zero.
    /// - Parameter length: 0 to ``bitCount``.
    public func masked(to length: Int) -> IPAddress {
        // IPv4 bits are the last 32 of the mapped form, whose first 96 bits stay as they are.
        let bits = max(0, min(bitCount, length)) + (isIPv4 ? 96 : 0)
        func mask(_ bitsInHalf: Int) -> UInt64 {
            bitsInHalf <= 0 ? 0 : bitsInHalf >= 64 ? .max : ~(UInt64.max >> UInt64(bitsInHalf))
        }
        return IPAddress(high: high & mask(bits), low: low & mask(bits - 64), isIPv4: isIPv4)
    }

    /// Whether the first `length` bits of both addresses are equal (false across families).
    func sharesPrefix(with other: IPAddress, length: Int) -> Bool {
        isIPv4 == other.isIPv4 && masked(to: length) == other.masked(to: length)
    }

    /// The standard text form: dotted decimal, or RFC 5952 IPv6 (lower case, `::` for the
    /// longest run of zeros).
    public var description: String {
        if isIPv4 {
            let value = UInt32(truncatingIfNeeded: low)
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { buffer in
            for index in 0..<8 {
                buffer[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
                buffer[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
            }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension IPAddress {
    /// What per-address limits count against: the IPv4 address itself, or the /64 network of
    /// an IPv6 address (the block one subscriber is given, all of which it can use).
    var limitGroup: String {
        isIPv4 ? description : "\(masked(to: 64))/64"
    }
}
