import Foundation

/// The address ranges of the reverse proxies in front of the server (`tally serve
/// --trusted-proxy CIDR`, `TALLY_TRUSTED_PROXIES`).
///
/// Only a request whose peer is inside one of these ranges may name its client in
/// `X-Forwarded-For` or `Forwarded`; see ``ClientAddressResolver``. An IPv4 range matches
/// IPv4 peers (also when a dual-stack socket reports them as `::ffff:a.b.c.d`), an IPv6
/// range IPv6 peers.
///
/// ```swift
/// let proxies = try TrustedProxies(["10.0.0.0/8", "2001:db8::/32", "127.0.0.1"])
/// proxies.contains(IPAddress("10.1.2.3")!)   // true
/// try TrustedProxies(list: "10.0.0.0/8, 192.168.0.0/16")
/// ```
public struct TrustedProxies: Sendable, Equatable {
    /// One range: a network address and how many of its leading bits are fixed.
    public struct Range: Sendable, Equatable, CustomStringConvertible {
        /// The first address of the range.
        public let network: IPAddress
        /// How many leading bits every address of the range shares with ``network``.
        public let prefixLength: Int

        /// Parses `address/length` or a single address (a range of one).
        /// - Throws: ``TrustedProxiesError`` saying what is wrong with `text`.
        public init(_ text: some StringProtocol) throws(TrustedProxiesError) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(parts[0]) else {
                throw TrustedProxiesError(
                    input: String(text), reason: "not an IP address or CIDR range (like 10.0.0.0/8, 192.168.1.5 or 2001:db8::/32)")
            }
            var length = address.bitCount
            if parts.count == 2 {
                let family = address.isIPv4 ? "IPv4" : "IPv6"
                guard parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), parts[1].utf8.count <= 3,
                    let value = Int(parts[1]), value <= address.bitCount
                else {
                    throw TrustedProxiesError(input: String(text), reason: "the prefix length of an \(family) range is 0 to \(address.bitCount)")
                }
                length = value
            }
            let network = address.masked(to: length)
            // Refused rather than masked: 192.168.1.10/24 more likely means a mistake than 192.168.1.0/24.
            guard network == address else {
                throw TrustedProxiesError(input: String(text), reason: "has bits set after the prefix; the range is \(network)/\(length)")
            }
            self.network = network
            self.prefixLength = length
        }

        /// Whether `address` is inside this range.
        public func contains(_ address: IPAddress) -> Bool {
            network.sharesPrefix(with: address, length: prefixLength)
        }

        /// The range in CIDR notation, such as `10.0.0.0/8`.
        public var description: String { "\(network)/\(prefixLength)" }
    }

    /// The ranges, in the order given.
    public let ranges: [Range]

    /// No trusted proxy: forwarding headers are never read.
    public static let none = TrustedProxies(ranges: [])

    /// The ranges given one per element.
    /// - Throws: ``TrustedProxiesError`` for the first element that is not a range.
    public init(_ ranges: [String]) throws(TrustedProxiesError) {
        var parsed: [Range] = []
        for text in ranges {
            parsed.append(try Range(text.trimmingCharacters(in: .whitespaces)))
        }
        self.ranges = parsed
    }

    /// The ranges in a comma-separated list (`TALLY_TRUSTED_PROXIES`); empty items are skipped.
    /// - Throws: ``TrustedProxiesError`` for the first item that is not a range.
    public init(list: String) throws(TrustedProxiesError) {
        try self.init(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Whether no range is configured.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` is inside one of the ranges.
    public func contains(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// These ranges followed by `other`'s.
    public func adding(_ other: TrustedProxies) -> TrustedProxies {
        TrustedProxies(ranges: ranges + other.ranges)
    }
}

/// A trusted proxy range that cannot be used, and why.
public struct TrustedProxiesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public let input: String
    /// What is wrong with it.
    public let reason: String

    /// The text and what is wrong with it.
    public var description: String { "'\(input)': \(reason)" }
}
