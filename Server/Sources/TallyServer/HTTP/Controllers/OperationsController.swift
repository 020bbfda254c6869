import Foundation
import Hummingbird
import TallyCore

/// What operators and tools read, without authentication: `GET /healthz`, `GET /metrics`
/// (Prometheus) and `GET /openapi.yaml` (the API, with every error code).
struct OperationsController {
    let metrics: Metrics
    /// Whether the database answers.
    let healthCheck: @Sendable () async -> Bool

    var endpoints: RouteCollection<TallyRequestContext> {
        RouteCollection(context: TallyRequestContext.self)
            .get("healthz", use: health)
            .get("metrics", use: exposition)
            .get("openapi.yaml", use: openAPI)
    }

    /// `{"status":"ok"}`, or 503 `unavailable` when the database does not answer.
    func health(_ request: Request, context: TallyRequestContext) async throws -> [String: String] {
        guard await healthCheck() else { throw TallyAPIError(.unavailable, "the database does not answer") }
        return ["status": "ok"]
    }

    /// Every counter and histogram, in Prometheus' text format.
    func exposition(_ request: Request, context: TallyRequestContext) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
    }

    /// The OpenAPI document built into the server.
    func openAPI(_ request: Request, context: TallyRequestContext) throws -> Response {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"), let data = try? Data(contentsOf: url) else {
            throw TallyAPIError(.internalError, "the OpenAPI document is missing from the build")
        }
        return Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
