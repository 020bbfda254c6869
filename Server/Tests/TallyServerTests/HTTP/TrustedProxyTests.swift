import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import Testing

/// Over real sockets: behind a trusted proxy every client has its own per-address limit;
/// the same headers from a peer that is not trusted change nothing.
@Suite struct TrustedProxyTests {
    /// A server whose per-address limit allows a burst of 10 sign-ups, and whose trusted
    /// proxies are `trusted`. The test client connects from loopback (IPv4 or IPv6).
    static func server(trusting trusted: [String]) async throws -> (API, Metrics) {
        var catalog = Harness.catalog
        catalog.limits.ipRequestsPerMinute = 40  // a burst of 10, then one every 1.5 s
        let api = try await API(catalog: catalog, trustedProxies: try TrustedProxies(trusted))
        return (api, api.metrics)
    }

    /// Sign-ups (limited per address) from `client`, as the proxy would forward them.
    static func signUps(
        _ count: Int, from client: String?, header: String = "X-Forwarded-For",
        with tester: some TestClientProtocol
    ) async throws -> [Int] {
        var statuses: [Int] = []
        for _ in 0..<count {
            var headers: HTTPFields = [:]
            if let client { headers[.init(header)!] = client }
            statuses.append(Int(try await tester.execute(uri: "/v1/users", method: .post, headers: headers).status.code))
        }
        return statuses
    }

    static let loopback = ["127.0.0.0/8", "::1"]

    @Test func behindATrustedProxyEachClientHasItsOwnLimit() async throws {
        let (app, metrics) = try await Self.server(trusting: Self.loopback)
        try await app.test(.live) { client in
            // 40 clients, 3 sign-ups each: 120 from one proxy, none refused.
            for index in 0..<40 {
                let statuses = try await Self.signUps(3, from: "203.0.113.\(index + 1)", with: client)
                #expect(statuses == [201, 201, 201], "client \(index + 1)")
            }
            // IPv6 clients and RFC 7239 Forwarded are read as well.
            #expect(try await Self.signUps(3, from: "2001:db8:1::7, 127.0.0.1", with: client) == [201, 201, 201])
            #expect(try await Self.signUps(3, from: #"for="[2001:db8:2::7]:443""#, header: "Forwarded", with: client) == [201, 201, 201])

            // One client over its limit is throttled, and only that client.
            let busy = try await Self.signUps(14, from: "198.51.100.9", with: client)
            #expect(busy.prefix(10).allSatisfy { $0 == 201 }, "\(busy)")
            #expect(busy.suffix(4).allSatisfy { $0 == 429 }, "\(busy)")
            // It cannot escape by writing another address in front of the proxy's: the rightmost untrusted one counts.
            #expect(try await Self.signUps(1, from: "192.0.2.200, 198.51.100.9", with: client) == [429])
            #expect(try await Self.signUps(1, from: "198.51.100.10", with: client) == [201])
        }
        #expect(metrics.value("tally_client_addresses_total", ["source": "x_forwarded_for"]) == 40 * 3 + 3 + 14 + 2)
        #expect(metrics.value("tally_client_addresses_total", ["source": "forwarded"]) == 3)
        #expect(metrics.value("tally_rate_limited_total", ["limit": "ip"]) == 5)
    }

    @Test func anIPv6ClientIsLimitedByItsSlash64() async throws {
        let (app, _) = try await Self.server(trusting: Self.loopback)
        try await app.test(.live) { client in
            // One subscriber's /64: every address in it is the same client.
            var statuses: [Int] = []
            for index in 1...12 {
                statuses += try await Self.signUps(1, from: "2001:db8:5:6:\(String(index, radix: 16))::1", with: client)
            }
            #expect(statuses.prefix(10).allSatisfy { $0 == 201 }, "\(statuses)")
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
            // The neighbouring /64 is another subscriber.
            #expect(try await Self.signUps(1, from: "2001:db8:5:7::1", with: client) == [201])
        }
    }

    @Test func theSameHeadersFromAnUntrustedPeerChangeNothing() async throws {
        // The proxies trusted are elsewhere: the loopback peer is a client like any other.
        let (app, metrics) = try await Self.server(trusting: ["10.0.0.0/8", "2001:db8:ffff::/48"])
        try await app.test(.live) { client in
            var statuses: [Int] = []
            for index in 0..<14 {
                statuses += try await Self.signUps(1, from: "203.0.113.\(index + 1)", with: client)
            }
            #expect(statuses.prefix(10).allSatisfy { $0 == 201 }, "\(statuses)")
            #expect(statuses.suffix(4).allSatisfy { $0 == 429 }, "\(statuses)")
            #expect(try await Self.signUps(1, from: "for=192.0.2.1", header: "Forwarded", with: client) == [429])
            #expect(try await Self.signUps(1, from: nil, with: client) == [429])
        }
        #expect(metrics.value("tally_client_addresses_total", ["source": "ignored"]) == 15)
        #expect(metrics.value("tally_client_addresses_total", ["source": "x_forwarded_for"]) == 0)
    }

    @Test func withoutTrustedProxiesHeadersAreIgnored() async throws {
        let (app, _) = try await Self.server(trusting: [])
        try await app.test(.live) { client in
            var statuses: [Int] = []
            for index in 0..<12 {
                statuses += try await Self.signUps(1, from: "203.0.113.\(index + 1)", with: client)
            }
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
        }
    }
}
