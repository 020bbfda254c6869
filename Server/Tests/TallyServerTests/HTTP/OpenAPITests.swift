import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import TallyTestSupport
import Testing

/// The OpenAPI document in the repository describes exactly the routes the server has, and
/// every answer each of them gives.
@Suite struct OpenAPITests {
    /// The document's operations ("get /v1/me/orders/{id}") and the statuses each declares.
    static func declaredOperations() throws -> [String: Set<Int>] {
        let spec = try String(contentsOf: Repository.server.appendingPathComponent("Sources/TallyServer/Resources/openapi.yaml"), encoding: .utf8)
        var operations: [String: Set<Int>] = [:]
        var currentPath: String?
        var currentOperation: String?
        var inPaths = false
        var inResponses = false
        for line in spec.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            if inPaths, !line.hasPrefix(" "), !line.isEmpty { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
                currentOperation = nil
            } else if let currentPath, let method = ["get", "post", "put", "delete", "patch"].first(where: { line == "    \($0):" }) {
                currentOperation = "\(method) \(currentPath)"
                operations[currentOperation!] = []
                inResponses = false
            } else if line == "      responses:" {
                inResponses = true
            } else if line.hasPrefix("      "), !line.hasPrefix("       ") {
                inResponses = false
            } else if inResponses, let currentOperation, line.hasPrefix("        \""),
                let status = Int(line.dropFirst(9).prefix(3))
            {
                operations[currentOperation, default: []].insert(status)
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedPathIsARoute() async throws {
        let api = try await API()
        // HEAD is served for every GET route and documented once for all, in the description.
        // The web console's pages are for people, not programs: docs/console.md describes them.
        let routes = Set(
            api.router.routes.filter { $0.method != .head && !$0.path.description.hasPrefix("/console") }.map { route -> String in
                let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "\(route.method.rawValue.lowercased()) /" + path.joined(separator: "/")
            })
        let documented = Set(try Self.declaredOperations().keys)
        #expect(!documented.isEmpty)
        #expect(routes.subtracting(documented).isEmpty, "undocumented routes: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented but not served: \(documented.subtracting(routes).sorted())")
    }

    /// Every (route, method, status) the server answered, from its request counter.
    static func observed(_ metrics: Metrics) -> [(operation: String, status: Int)] {
        metrics.exposition().split(separator: "\n").compactMap { line -> (String, Int)? in
            guard line.hasPrefix("tally_http_requests_total{") else { return nil }
            func label(_ name: String) -> String? {
                guard let start = line.range(of: "\(name)=\"") else { return nil }
                return String(line[start.upperBound...].prefix { $0 != "\"" })
            }
            guard let method = label("method"), let route = label("route"), let status = label("status").flatMap({ Int($0) }) else { return nil }
            return ("\(method.lowercased()) \(route)", status)
        }
    }

    /// Drives every route through the answers it can give: each kind of caller, bad input,
    /// ids too long, bodies too large, limits reached, the database down. Whatever status
    /// comes back must be declared for that operation in the document.
    @Test func everyStatusARouteGivesIsDeclared() async throws {
        let declared = try Self.declaredOperations()
        var outage: OutageDatabase?
        var limits = Harness.catalog
        limits.limits.userRequestsPerMinute = 1
        limits.limits.ipRequestsPerMinute = 1
        limits.limits.notificationRequestsPerMinute = 1
        let apis = [
            try await API(),
            try await API(catalog: limits),
            try await API(database: { database in
                let wrapped = OutageDatabase(database)
                outage = wrapped
                return wrapped
            }),
        ]
        let database = try #require(outage)
        let longID = String(repeating: "x", count: 129)
        let huge = String(repeating: "a", count: 70 * 1024)

        // Each kind of caller on each route, and the bad input of BadInputTests.
        try await apis[0].test { client in
            let user = try await client.newUser()
            for route in RouteCase.all {
                for caller in Caller.allCases {
                    _ = try await client.execute(
                        uri: route.path, method: route.method, headers: caller.headers(userToken: user.userToken),
                        body: route.body.map { ByteBuffer(string: $0) })
                }
                let path = route.path.replacingOccurrences(of: "no-such-order", with: longID)
                    .replacingOccurrences(of: "no-such-hold", with: longID).replacingOccurrences(of: "nobody", with: longID)
                if path != route.path {
                    for caller in [Caller.user, .secretKey] {
                        _ = try await client.execute(
                            uri: path, method: route.method, headers: caller.headers(userToken: user.userToken),
                            body: route.body.map { ByteBuffer(string: $0) })
                    }
                }
                if route.body != nil {
                    for caller in [Caller.user, .secretKey] {
                        _ = try await client.execute(
                            uri: route.path, method: route.method, headers: caller.headers(userToken: user.userToken),
                            body: ByteBuffer(string: huge))
                    }
                }
            }
            for badCase in BadInputTests.cases {
                var headers: HTTPFields = [.contentType: "application/json"]
                switch badCase.auth {
                case .none: break
                case .user: headers[.authorization] = "Bearer \(user.userToken)"
                case .wrongToken: headers[.authorization] = "Bearer tu_not-a-token"
                case .secret: headers[.authorization] = "Bearer \(API.secret)"
                }
                _ = try await client.execute(uri: badCase.path, method: badCase.method, headers: headers, body: badCase.body.map { ByteBuffer(string: $0) })
            }
        }
        // Limits reached: each limited route past its burst.
        try await apis[1].test { client in
            let user = try await client.newUser()
            for route in RouteCase.all where route.method == .post {
                for _ in 0..<12 {
                    _ = try await client.execute(
                        uri: route.path, method: route.method, headers: Caller.user.headers(userToken: user.userToken),
                        body: route.body.map { ByteBuffer(string: $0) })
                }
            }
        }
        // The database down: every route, every caller that gets past authentication.
        try await apis[2].test { client in
            let user = try await client.newUser()
            database.setDown(true)
            for route in RouteCase.all {
                for caller in [Caller.user, .secretKey, .none] {
                    _ = try await client.execute(
                        uri: route.path, method: route.method, headers: caller.headers(userToken: user.userToken),
                        body: route.body.map { ByteBuffer(string: $0) })
                }
            }
            database.setDown(false)
        }

        var seen: [String: Set<Int>] = [:]
        for api in apis {
            for (operation, status) in Self.observed(api.metrics) { seen[operation, default: []].insert(status) }
        }
        for (operation, statuses) in seen.sorted(by: { $0.key < $1.key }) {
            // Answers of no operation (404 for an unknown path, 405 for an unknown method) are documented in the description.
            guard let documented = declared[operation] else { continue }
            #expect(statuses.subtracting(documented).isEmpty, "\(operation) answered \(statuses.subtracting(documented).sorted()), which it does not declare")
        }
        // The drive reached what it is for: each status class on the routes that give it.
        #expect(seen["get /v1/me"]?.contains(503) == true)
        #expect(seen["post /v1/me/spend"]?.contains(429) == true)
        #expect(seen["post /v1/notifications/appstore"]?.contains(429) == true)
        #expect(seen["get /v1/me/orders/{id}"]?.contains(400) == true)
        #expect(seen["post /v1/me/purchases"]?.contains(413) == true)
        #expect(Set(seen.keys).isSuperset(of: declared.keys), "not driven: \(Set(declared.keys).subtracting(seen.keys).sorted())")
    }
}
