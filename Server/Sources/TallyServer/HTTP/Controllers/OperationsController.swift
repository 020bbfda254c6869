import Foundation
import Hummingbird
import TallyCore

/// What operators and tools read, without authentication: `GET /healthz` and
/// `GET /openapi.yaml` (the API, with every error code). `/metrics` is not here: it has a
/// listener of its own (``MetricsController``), off the public one.
struct OperationsController {
    /// The OpenAPI document with this server's catalog, rendered once.
    let openAPIDocument: String?
    /// Whether the database answers.
    let healthCheck: @Sendable () async -> Bool

    init(catalog: TallyCatalog, healthCheck: @escaping @Sendable () async -> Bool) {
        openAPIDocument = OpenAPIDocument.written().map { OpenAPIDocument.rendered($0, for: catalog) }
        self.healthCheck = healthCheck
    }

    var endpoints: RouteCollection<TallyRequestContext> {
        RouteCollection(context: TallyRequestContext.self)
            .get("healthz", use: health)
            .get("openapi.yaml", use: openAPI)
    }

    /// `{"status":"ok"}`, or 503 `unavailable` when the database does not answer.
    func health(_ request: Request, context: TallyRequestContext) async throws -> [String: String] {
        guard await healthCheck() else { throw TallyAPIError(.unavailable, "the database does not answer") }
        return ["status": "ok"]
    }

    /// The OpenAPI document built into the server, with this server's catalog.
    func openAPI(_ request: Request, context: TallyRequestContext) throws -> Response {
        guard let openAPIDocument else { throw TallyAPIError(.internalError, "the OpenAPI document is missing from the build") }
        return Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: openAPIDocument)))
    }
}
