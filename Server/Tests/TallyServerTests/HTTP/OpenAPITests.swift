import Foundation
import Hummingbird
import TallyServer
import ServerTestSupport
import Testing

/// The OpenAPI document in the repository describes exactly the routes the server has.
@Suite struct OpenAPITests {
    @Test func everyRouteIsDocumentedAndEveryDocumentedPathIsARoute() async throws {
        let api = try await API()
        let routes = Set(api.router.routes.map { route -> String in
            let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            return "\(route.method.rawValue.lowercased()) /" + path.joined(separator: "/")
        })
        let spec = try String(contentsOf: Repository.server.appendingPathComponent("Sources/TallyServer/Resources/openapi.yaml"), encoding: .utf8)
        var documented = Set<String>()
        var currentPath: String?
        var inPaths = false
        for line in spec.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.hasPrefix(" "), !line.isEmpty { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if let currentPath, let method = ["get", "post", "put", "delete", "patch"].first(where: { line == "    \($0):" }) {
                documented.insert("\(method) \(currentPath)")
            }
        }
        #expect(!documented.isEmpty)
        #expect(routes.subtracting(documented).isEmpty, "undocumented routes: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented but not served: \(documented.subtracting(routes).sorted())")
    }
}
