/// Works out the client's address of a request: the peer's, or, when the peer is a trusted
/// proxy, the one the proxies name in `X-Forwarded-For` or RFC 7239 `Forwarded`.
///
/// The rules, so that a client cannot choose its own address:
/// - Headers are read only when the peer is inside ``trustedProxies``; otherwise they are
///   ignored, whatever they say.
/// - The list is read from the right (the hop nearest the server) and trusted addresses are
///   passed over: the first address that is not a trusted proxy is the client. What a client
///   wrote itself sits further left and is never reached. When every address is trusted, the
///   leftmost is the client.
/// - `X-Forwarded-For` is read when present, `Forwarded` only otherwise: proxies commonly
///   append to `X-Forwarded-For` and pass `Forwarded` through untouched, so a `Forwarded`
///   header beside it may come from the client.
/// - A header that cannot be read to the client (garbage, `unknown`, an obfuscated `_name`, a
///   `Forwarded` element without `for=`) leaves the peer's address. Nothing here ever fails.
///
/// ```swift
/// let resolver = ClientAddressResolver(trustedProxies: try TrustedProxies(["10.0.0.0/8"]))
/// resolver.resolve(peer: "10.0.0.5", forwardedFor: ["203.0.113.9, 10.0.0.7"], forwarded: []).address  // "203.0.113.9"
/// resolver.resolve(peer: "198.51.100.1", forwardedFor: ["203.0.113.9"], forwarded: []).address        // "198.51.100.1"
/// ```
public struct ClientAddressResolver: Sendable {
    /// Where a resolved address came from; the label of `tally_client_address_total`.
    public enum Source: String, Sendable, CaseIterable {
        /// The peer, which sent no forwarding header.
        case peer
        /// The peer is a trusted proxy; the address is from `X-Forwarded-For`.
        case forwardedFor = "x_forwarded_for"
        /// The peer is a trusted proxy; the address is from `Forwarded`.
        case forwarded
        /// The peer is not a trusted proxy and sent forwarding headers, which were ignored.
        case ignored
        /// The peer is a trusted proxy, but its forwarding header named no usable address.
        case unusable
    }

    /// A client address and where it came from.
    public struct Resolution: Sendable, Equatable {
        /// The address as text (``IPAddress/description``), or the peer's text when it is not
        /// an IP address (`unknown` when the server has no peer address).
        public var address: String
        /// The parsed address, when it is one.
        public var ipAddress: IPAddress?
        /// Where it came from.
        public var source: Source
    }

    /// The proxies whose forwarding headers are believed.
    public let trustedProxies: TrustedProxies

    /// Creates a resolver that believes the proxies in `trustedProxies`.
    public init(trustedProxies: TrustedProxies) {
        self.trustedProxies = trustedProxies
    }

    /// The longest list read; a longer one is not from a real chain of proxies.
    static let maximumHops = 32

    /// The client's address.
    /// - Parameters:
    ///   - peer: the connection's remote address as text, or nil when there is none.
    ///   - forwardedFor: every `X-Forwarded-For` field line, in order.
    ///   - forwarded: every `Forwarded` field line, in order.
    public func resolve(peer: String?, forwardedFor: [String], forwarded: [String]) -> Resolution {
        let peerAddress = peer.flatMap { IPAddress($0) }
        let peerResolution = Resolution(address: peerAddress?.description ?? peer ?? "unknown", ipAddress: peerAddress, source: .peer)
        let hasHeaders = !forwardedFor.isEmpty || !forwarded.isEmpty
        guard hasHeaders else { return peerResolution }
        guard let peerAddress, trustedProxies.contains(peerAddress) else {
            return Resolution(address: peerResolution.address, ipAddress: peerAddress, source: .ignored)
        }
        let client: IPAddress?
        let source: Source
        if !forwardedFor.isEmpty {
            client = walk(Self.forwardedForNodes(forwardedFor))
            source = .forwardedFor
        } else {
            client = walk(Self.forwardedNodes(forwarded))
            source = .forwarded
        }
        guard let client else { return Resolution(address: peerResolution.address, ipAddress: peerAddress, source: .unusable) }
        return Resolution(address: client.description, ipAddress: client, source: source)
    }

    // MARK: - Reading the lists

    /// What one hop of a forwarding list names.
    enum Node: Equatable {
        case address(IPAddress)
        /// `unknown`, or an obfuscated identifier (`_hidden`): no address.
        case unidentified
    }

    /// From the right, the first node that is not a trusted proxy; the leftmost when all are.
    /// Nil when the list is empty, too long, holds garbage, or the deciding hop has no address.
    private func walk(_ nodes: [Node]?) -> IPAddress? {
        guard let nodes, !nodes.isEmpty, nodes.count <= Self.maximumHops else { return nil }
        var leftmost: IPAddress?
        for node in nodes.reversed() {
            guard case .address(let address) = node else { return nil }
            if !trustedProxies.contains(address) { return address }
            leftmost = address
        }
        return leftmost
    }

    /// `X-Forwarded-For: client, proxy1, proxy2`, over several field lines; empty elements are
    /// skipped (RFC 9110 §5.6.1). Nil when an element is not an address.
    static func forwardedForNodes(_ lines: [String]) -> [Node]? {
        var nodes: [Node] = []
        for line in lines {
            for element in Array(line.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let trimmed = trim(element)
                if trimmed.isEmpty { continue }
                guard nodes.count < maximumHops, let node = node(trimmed, bareIPv6: true), case .address = node else { return nil }
                nodes.append(node)
            }
        }
        return nodes
    }

    /// RFC 7239 `Forwarded: for=192.0.2.60;proto=https, for="[2001:db8::17]:4711"`: the `for`
    /// parameter of each element. Nil when the header does not follow the grammar, or an
    /// element has no `for` or two.
    static func forwardedNodes(_ lines: [String]) -> [Node]? {
        var nodes: [Node] = []
        for line in lines {
            var parser = ForwardedParser(Array(line.utf8))
            guard let elements = parser.elements() else { return nil }
            for element in elements {
                let values = element.filter { $0.name == "for" }.map(\.value)
                guard values.count == 1, nodes.count < maximumHops, let node = node(values[0][...], bareIPv6: false) else { return nil }
                nodes.append(node)
            }
        }
        return nodes
    }

    /// A node: `192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]`, `[2001:db8::1]:8080`, a bare
    /// IPv6 address where the header allows it, `unknown`, or `_obfuscated` (with an optional
    /// port). Nil for anything else.
    static func node(_ bytes: ArraySlice<UInt8>, bareIPv6: Bool) -> Node? {
        guard let first = bytes.first, bytes.count <= 64 else { return nil }
        if first == UInt8(ascii: "_") || equalsIgnoringCase(bytes, "unknown") {
            let name = bytes.split(separator: UInt8(ascii: ":"), maxSplits: 1, omittingEmptySubsequences: false)
            guard name.count == 1 || isPort(name[1]) else { return nil }
            guard name[0].count > 1, name[0].dropFirst().allSatisfy(isObfuscatedCharacter) else { return nil }
            return .unidentified
        }
        if first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let rest = bytes[(close + 1)...]
            guard rest.isEmpty || (rest.first == UInt8(ascii: ":") && isPort(rest.dropFirst())) else { return nil }
            return address(bytes[(bytes.startIndex + 1)..<close], ipv6: true)
        }
        let colons = bytes.lazy.filter { $0 == UInt8(ascii: ":") }.count
        if colons == 0 { return address(bytes, ipv6: false) }
        if colons == 1, let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            guard isPort(bytes[(colon + 1)...]) else { return nil }
            return address(bytes[..<colon], ipv6: false)
        }
        return bareIPv6 ? address(bytes, ipv6: true) : nil
    }

    private static func address(_ bytes: ArraySlice<UInt8>, ipv6: Bool) -> Node? {
        guard let address = IPAddress(String(decoding: bytes, as: UTF8.self)) else { return nil }
        // An IPv4 address written in brackets is not one of the header's forms.
        if ipv6, !bytes.contains(UInt8(ascii: ":")) { return nil }
        return .address(address)
    }

    private static func isPort(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "_") { return bytes.dropFirst().allSatisfy(isObfuscatedCharacter) }
        return bytes.count <= 5 && bytes.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// RFC 7239 §6.3: `obfnode = "_" 1*( ALPHA / DIGIT / "." / "_" / "-")`.
    private static func isObfuscatedCharacter(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        for (offset, byte) in bytes.enumerated() where byte | 0x20 != word.utf8Start[offset] { return false }
        return true
    }

    static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}

/// RFC 7239 §4: `Forwarded = 1#forwarded-element`,
/// `forwarded-element = [ forwarded-pair ] *( ";" [ forwarded-pair ] )`,
/// `forwarded-pair = token "=" value`, `value = token / quoted-string`.
struct ForwardedParser {
    struct Pair {
        /// Lower-cased parameter name.
        var name: String
        /// The value, unquoted.
        var value: [UInt8]
    }

    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The elements with their pairs, or nil when the text breaks the grammar.
    mutating func elements() -> [[Pair]]? {
        var elements: [[Pair]] = []
        var current: [Pair] = []
        while true {
            skipSpaces()
            guard position < bytes.count else { break }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                if !current.isEmpty { elements.append(current) }
                current = []
            case UInt8(ascii: ";"):
                position += 1
            default:
                guard let pair = pair() else { return nil }
                current.append(pair)
                skipSpaces()
                guard position == bytes.count || bytes[position] == UInt8(ascii: ";") || bytes[position] == UInt8(ascii: ",") else { return nil }
            }
        }
        if !current.isEmpty { elements.append(current) }
        return elements
    }

    private mutating func pair() -> Pair? {
        let name = token()
        guard !name.isEmpty, position < bytes.count, bytes[position] == UInt8(ascii: "=") else { return nil }
        position += 1
        let value: [UInt8]
        if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
            guard let quoted = quotedString() else { return nil }
            value = quoted
        } else {
            value = Array(token())
            guard !value.isEmpty else { return nil }
        }
        return Pair(name: String(decoding: name.map { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) }, as: UTF8.self), value: value)
    }

    private mutating func token() -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count, Self.isTokenCharacter(bytes[position]) { position += 1 }
        return bytes[start..<position]
    }

    /// `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE`.
    private mutating func quotedString() -> [UInt8]? {
        position += 1
        var value: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return value
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                value.append(bytes[position])
                position += 1
            case 0x09, 0x20...0x7E, 0x80...0xFF: value.append(byte)
            default: return nil
            }
        }
        return nil
    }

    private mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
