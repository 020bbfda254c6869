import Foundation
import TallyServer
import Testing

/// Addresses, proxy ranges, and who the client of a request is.
@Suite struct ClientAddressResolverTests {
    // MARK: - Addresses

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1", true),
        ("0.0.0.0", "0.0.0.0", true),
        ("255.255.255.255", "255.255.255.255", true),
        ("::1", "::1", false),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1", false),
        ("2001:db8::", "2001:db8::", false),
        ("::ffff:192.0.2.1", "192.0.2.1", true),  // a dual-stack socket's IPv4 peer
        ("::FFFF:c000:0201", "192.0.2.1", true),
        ("fe80::1:2:3:4", "fe80::1:2:3:4", false),
    ])
    func addressesReadInTheirStandardForm(text: String, printed: String, isIPv4: Bool) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == printed)
        #expect(address.isIPv4 == isIPv4)
    }

    @Test(arguments: [
        "", " 192.0.2.1", "192.0.2.1 ", "192.0.2", "192.0.2.256", "192.0.2.1.5", "01.2.3.4", "192.0.2.1:80", "[::1]", "::1%eth0",
        "2001:db8:::1", "2001:db8::g", "1:2:3:4:5:6:7:8:9", "unknown", "_hidden", "localhost", "192.0.2.1\u{0}", String(repeating: "1", count: 100),
    ])
    func textThatIsNoAddressIsRefused(text: String) {
        #expect(IPAddress(text) == nil)
    }

    // MARK: - Trusted proxy ranges

    @Test(arguments: [
        ("10.0.0.0/8", "10.255.1.2", true), ("10.0.0.0/8", "11.0.0.1", false),
        ("192.168.1.0/24", "192.168.1.77", true), ("192.168.1.0/24", "192.168.2.1", false),
        ("192.0.2.7", "192.0.2.7", true), ("192.0.2.7", "192.0.2.8", false),
        ("0.0.0.0/0", "203.0.113.5", true), ("0.0.0.0/0", "2001:db8::1", false),
        ("2001:db8::/32", "2001:db8:ffff::1", true), ("2001:db8::/32", "2001:db9::1", false),
        ("::1", "::1", true), ("::/0", "192.0.2.1", false),
        ("10.0.0.0/8", "::ffff:10.1.2.3", true),
        ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.0", false),
    ])
    func rangesContainTheirAddresses(range: String, address: String, contained: Bool) throws {
        let proxies = try TrustedProxies([range])
        #expect(proxies.contains(try #require(IPAddress(address))) == contained)
    }

    @Test(arguments: [
        ("10.0.0.0/33", "the prefix length of an IPv4 range is 0 to 32"),
        ("2001:db8::/129", "the prefix length of an IPv6 range is 0 to 128"),
        ("10.0.0.0/-1", "the prefix length of an IPv4 range is 0 to 32"),
        ("10.0.0.0/", "the prefix length of an IPv4 range is 0 to 32"),
        ("10.0.0.0/8/9", "the prefix length of an IPv4 range is 0 to 32"),
        ("192.168.1.10/24", "has bits set after the prefix; the range is 192.168.1.0/24"),
        ("proxy.internal", "not an IP address or CIDR range"),
        ("", "not an IP address or CIDR range"),
        ("10.0.0.0 /8", "not an IP address or CIDR range"),
    ])
    func aBadRangeSaysWhatIsWrong(text: String, reason: String) {
        let error = #expect(throws: TrustedProxiesError.self) { try TrustedProxies([text]) }
        #expect(error?.input == text.trimmingCharacters(in: .whitespaces))
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func aCommaSeparatedListSkipsEmptyItems() throws {
        let proxies = try TrustedProxies(list: " 10.0.0.0/8, ,2001:db8::/32 ,")
        #expect(proxies.ranges.map(\.description) == ["10.0.0.0/8", "2001:db8::/32"])
        #expect(try TrustedProxies(list: "").isEmpty)
        #expect(throws: TrustedProxiesError.self) { try TrustedProxies(list: "10.0.0.0/8, nonsense") }
    }

    // MARK: - Resolving the client

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var peer: String?
        var forwardedFor: [String] = []
        var forwarded: [String] = []
        var client: String
        var source: ClientAddressResolver.Source
        var testDescription: String { name }
    }

    /// The proxies: a load balancer network and an IPv6 one.
    static let resolver = ClientAddressResolver(trustedProxies: try! TrustedProxies(["10.0.0.0/8", "2001:db8:ffff::/48"]))

    static let cases: [Case] = [
        // No proxy in between.
        Case(name: "a direct client", peer: "203.0.113.7", client: "203.0.113.7", source: .peer),
        Case(name: "no peer address", peer: nil, forwardedFor: ["198.51.100.1"], client: "unknown", source: .ignored),
        Case(name: "a trusted peer without headers", peer: "10.0.0.2", client: "10.0.0.2", source: .peer),

        // Spoofing: headers from a peer that is not a trusted proxy change nothing.
        Case(name: "an untrusted peer's X-Forwarded-For", peer: "203.0.113.7", forwardedFor: ["198.51.100.1"], client: "203.0.113.7", source: .ignored),
        Case(name: "an untrusted peer's Forwarded", peer: "203.0.113.7", forwarded: ["for=198.51.100.1"], client: "203.0.113.7", source: .ignored),
        Case(name: "an untrusted peer naming a trusted proxy", peer: "203.0.113.7", forwardedFor: ["10.0.0.9"], client: "203.0.113.7", source: .ignored),
        Case(
            name: "a client prepends a fake address; the proxy appends the real one", peer: "10.0.0.2",
            forwardedFor: ["1.2.3.4, 203.0.113.7"], client: "203.0.113.7", source: .forwardedFor),
        Case(
            name: "a client sends its own X-Forwarded-For line; the proxy adds another", peer: "10.0.0.2",
            forwardedFor: ["1.2.3.4", "203.0.113.7"], client: "203.0.113.7", source: .forwardedFor),
        Case(
            name: "a client sends Forwarded; the proxy appends to X-Forwarded-For, which wins", peer: "10.0.0.2",
            forwardedFor: ["203.0.113.7"], forwarded: ["for=1.2.3.4"], client: "203.0.113.7", source: .forwardedFor),
        Case(
            name: "a client names a trusted address to hide behind it", peer: "10.0.0.2",
            forwardedFor: ["203.0.113.7, 10.0.0.5, 10.0.0.3"], client: "203.0.113.7", source: .forwardedFor),

        // Chains of proxies.
        Case(name: "one proxy", peer: "10.0.0.2", forwardedFor: ["203.0.113.7"], client: "203.0.113.7", source: .forwardedFor),
        Case(name: "two trusted proxies", peer: "10.0.0.2", forwardedFor: ["203.0.113.7, 10.1.0.1"], client: "203.0.113.7", source: .forwardedFor),
        Case(
            name: "an untrusted proxy in the chain is the client", peer: "10.0.0.2",
            forwardedFor: ["203.0.113.7, 198.51.100.20"], client: "198.51.100.20", source: .forwardedFor),
        Case(name: "every hop trusted: the leftmost", peer: "10.0.0.2", forwardedFor: ["10.9.9.9, 10.1.0.1"], client: "10.9.9.9", source: .forwardedFor),
        Case(name: "ports and spaces", peer: "10.0.0.2", forwardedFor: ["  203.0.113.7:51234 ,10.1.0.1:80  "], client: "203.0.113.7", source: .forwardedFor),
        Case(name: "empty elements are skipped", peer: "10.0.0.2", forwardedFor: [",203.0.113.7,,"], client: "203.0.113.7", source: .forwardedFor),

        // IPv6.
        Case(name: "an IPv6 client", peer: "10.0.0.2", forwardedFor: ["2001:DB8:1::7"], client: "2001:db8:1::7", source: .forwardedFor),
        Case(
            name: "an IPv6 client in brackets with a port", peer: "10.0.0.2", forwardedFor: ["[2001:db8:1::7]:443"], client: "2001:db8:1::7",
            source: .forwardedFor),
        Case(name: "an IPv6 proxy", peer: "2001:db8:ffff::10", forwardedFor: ["198.51.100.1"], client: "198.51.100.1", source: .forwardedFor),
        Case(name: "an IPv4 peer on an IPv6 socket", peer: "::ffff:10.0.0.2", forwardedFor: ["198.51.100.1"], client: "198.51.100.1", source: .forwardedFor),
        Case(name: "an untrusted IPv6 peer", peer: "2001:db8:1::1", forwardedFor: ["198.51.100.1"], client: "2001:db8:1::1", source: .ignored),

        // RFC 7239 Forwarded.
        Case(name: "Forwarded for=", peer: "10.0.0.2", forwarded: ["for=198.51.100.1;proto=https;by=10.0.0.2"], client: "198.51.100.1", source: .forwarded),
        Case(name: "Forwarded, names in any case", peer: "10.0.0.2", forwarded: ["For=198.51.100.1"], client: "198.51.100.1", source: .forwarded),
        Case(
            name: "Forwarded quoted IPv6 with a port", peer: "10.0.0.2", forwarded: [#"for="[2001:db8:cafe::17]:4711""#], client: "2001:db8:cafe::17",
            source: .forwarded),
        Case(name: "Forwarded quoted IPv6 without a port", peer: "10.0.0.2", forwarded: [#"for="[::1]""#], client: "::1", source: .forwarded),
        Case(name: "Forwarded quoted IPv4 with a port", peer: "10.0.0.2", forwarded: [#"for="198.51.100.1:8080""#], client: "198.51.100.1", source: .forwarded),
        Case(
            name: "Forwarded chain, rightmost untrusted", peer: "10.0.0.2",
            forwarded: ["for=1.2.3.4, for=198.51.100.1;proto=http, for=10.0.0.7"], client: "198.51.100.1", source: .forwarded),
        Case(name: "Forwarded over two lines", peer: "10.0.0.2", forwarded: ["for=1.2.3.4", "for=198.51.100.1"], client: "198.51.100.1", source: .forwarded),
        Case(
            name: "Forwarded quoted commas and semicolons", peer: "10.0.0.2",
            forwarded: [#"for=198.51.100.1;ext="a,b;c""#], client: "198.51.100.1", source: .forwarded),
        Case(name: "Forwarded unknown", peer: "10.0.0.2", forwarded: ["for=unknown"], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded obfuscated", peer: "10.0.0.2", forwarded: ["for=_hidden"], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded obfuscated with a port", peer: "10.0.0.2", forwarded: [#"for="_gazonk:_port1""#], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded unknown behind a trusted hop", peer: "10.0.0.2", forwarded: ["for=unknown, for=10.0.0.3"], client: "10.0.0.2", source: .unusable),
        Case(
            name: "Forwarded unknown left of the client", peer: "10.0.0.2", forwarded: ["for=unknown, for=198.51.100.1"], client: "198.51.100.1",
            source: .forwarded),

        // Garbage never fails the request: the peer's address is used.
        Case(name: "X-Forwarded-For garbage", peer: "10.0.0.2", forwardedFor: ["not an address"], client: "10.0.0.2", source: .unusable),
        Case(name: "X-Forwarded-For garbage at the right", peer: "10.0.0.2", forwardedFor: ["203.0.113.7, <script>"], client: "10.0.0.2", source: .unusable),
        Case(name: "X-Forwarded-For unknown", peer: "10.0.0.2", forwardedFor: ["unknown"], client: "10.0.0.2", source: .unusable),
        Case(name: "X-Forwarded-For only commas", peer: "10.0.0.2", forwardedFor: [" , ,"], client: "10.0.0.2", source: .unusable),
        Case(name: "X-Forwarded-For a zone", peer: "10.0.0.2", forwardedFor: ["fe80::1%eth0"], client: "10.0.0.2", source: .unusable),
        Case(name: "X-Forwarded-For a port too large", peer: "10.0.0.2", forwardedFor: ["203.0.113.7:999999"], client: "10.0.0.2", source: .unusable),
        Case(name: "X-Forwarded-For an IPv4 in brackets", peer: "10.0.0.2", forwardedFor: ["[203.0.113.7]"], client: "10.0.0.2", source: .unusable),
        Case(
            name: "X-Forwarded-For too many hops", peer: "10.0.0.2",
            forwardedFor: [Array(repeating: "10.0.0.1", count: 40).joined(separator: ",") + ",203.0.113.7"], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded without for=", peer: "10.0.0.2", forwarded: ["proto=https;by=10.0.0.2"], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded with two for=", peer: "10.0.0.2", forwarded: ["for=1.2.3.4;for=198.51.100.1"], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded unquoted IPv6", peer: "10.0.0.2", forwarded: ["for=[::1]:80"], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded unterminated quote", peer: "10.0.0.2", forwarded: [#"for="198.51.100.1"#], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded not pairs", peer: "10.0.0.2", forwarded: ["198.51.100.1"], client: "10.0.0.2", source: .unusable),
        Case(name: "Forwarded empty value", peer: "10.0.0.2", forwarded: ["for="], client: "10.0.0.2", source: .unusable),
        Case(name: "a peer that is no IP address", peer: "unix-socket", forwardedFor: ["198.51.100.1"], client: "unix-socket", source: .ignored),
    ]

    @Test(arguments: cases)
    func theClientIsWhoTheTrustedProxiesSay(testCase: Case) {
        let resolution = Self.resolver.resolve(peer: testCase.peer, forwardedFor: testCase.forwardedFor, forwarded: testCase.forwarded)
        #expect(resolution.address == testCase.client)
        #expect(resolution.source == testCase.source)
    }

    @Test func withoutTrustedProxiesNoHeaderIsRead() {
        let resolver = ClientAddressResolver(trustedProxies: .none)
        let resolution = resolver.resolve(peer: "127.0.0.1", forwardedFor: ["198.51.100.1"], forwarded: ["for=198.51.100.2"])
        #expect(resolution.address == "127.0.0.1")
        #expect(resolution.source == .ignored)
    }
}
