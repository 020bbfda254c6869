import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// The methods each path of the router answers, so that a request with another method on an
/// existing path gets 405 with `Allow` rather than 404.
///
/// The router only says "no route" for both; this table matches a path against every route
/// template (`/v1/me/orders/{id}`) the way the router does, segment by segment. It is filled
/// once the routes are registered (``load(_:)``), before the server answers anything.
final class AllowedMethods: Sendable {
    private struct Template {
        /// Literal segments, nil where the template captures a parameter or has a wildcard.
        let segments: [Substring?]
        let method: HTTPRequest.Method
    }

    private let templates = NIOLockedValueBox<[Template]>([])

    /// Records the routes (path templates as the router prints them); a GET route also answers HEAD.
    func load(_ routes: [(path: String, method: HTTPRequest.Method)]) {
        var loaded: [Template] = []
        for route in routes {
            let segments = route.path.split(separator: "/").map { segment -> Substring? in
                segment.hasPrefix("{") || segment.hasPrefix(":") || segment.contains("*") ? nil : segment
            }
            loaded.append(Template(segments: segments, method: route.method))
            if route.method == .get { loaded.append(Template(segments: segments, method: .head)) }
        }
        templates.withLockedValue { $0 = loaded }
    }

    /// The methods routes answer on `path`, in a stable order; empty when no route has this path.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        let matching = templates.withLockedValue { templates in
            templates.filter { template in
                template.segments.count == segments.count
                    && zip(template.segments, segments).allSatisfy { literal, segment in literal.map { $0 == segment } ?? true }
            }
        }
        var seen = Set<String>()
        return matching.map(\.method).filter { seen.insert($0.rawValue).inserted }.sorted { $0.rawValue < $1.rawValue }
    }

    /// The `Allow` field value for `path`, or nil when no route has it.
    func allowHeader(for path: String) -> String? {
        let methods = methods(for: path)
        return methods.isEmpty ? nil : methods.map(\.rawValue).joined(separator: ", ")
    }
}
