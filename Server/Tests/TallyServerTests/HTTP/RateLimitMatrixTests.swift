import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import Testing

/// Which routes are rate-limited: those that take credits, verify signed data or grant
/// sign-up credits, and the console's sign-in (which checks a password), and no other.
@Suite struct RateLimitMatrixTests {
    static let limited: Set<String> = [
        "POST /v1/users", "POST /v1/notifications/appstore", "POST /v1/me/purchases", "POST /v1/me/restore", "POST /v1/me/spend",
        "POST /v1/me/reservations", "POST /v1/me/reservations/{id}/commit", "POST /v1/me/subscriptions/refresh", "POST /console/login",
    ]

    /// A server whose every limit allows a burst of 10 and then one request a minute.
    static func api() async throws -> API {
        var catalog = Harness.catalog
        catalog.limits.userRequestsPerMinute = 1
        catalog.limits.ipRequestsPerMinute = 1
        catalog.limits.notificationRequestsPerMinute = 1
        return try await API(catalog: catalog)
    }

    @Test(arguments: RouteCase.all)
    func aRouteIsLimitedExactlyWhenTheTableSaysSo(route: RouteCase) async throws {
        let api = try await Self.api()
        // The caller the route serves: anyone, a user, or the secret key.
        let caller: Caller = route.statuses[.none] != 401 ? .none : route.statuses[.user] != 401 ? .user : .secretKey
        try await api.test { client in
            let user = try await client.newUser()
            var statuses: [Int] = []
            for _ in 0..<12 {
                let response = try await client.execute(
                    uri: route.path, method: route.method, headers: caller.headers(userToken: user.userToken),
                    body: route.body.map { ByteBuffer(string: $0) })
                statuses.append(Int(response.status.code))
            }
            let limited = Self.limited.contains("\(route.method.rawValue) \(route.route)")
            #expect(statuses.contains(429) == limited, "\(statuses)")
            if limited { #expect(statuses.prefix(9).allSatisfy { $0 != 429 }, "the burst is 10: \(statuses)") }
        }
    }

    @Test func theAppsServerSignsUpWithoutALimit() async throws {
        let api = try await Self.api()
        try await api.test { client in
            for _ in 0..<15 {
                let response = try await client.post("/v1/users", token: API.secret)
                #expect(response.status == .created)
            }
        }
    }
}
