import Hummingbird

/// `GET /metrics`: every counter and histogram in Prometheus' text format, on the metrics
/// listener only (`tally serve --metrics-address`). The totals are the business's (grants and
/// spends by currency, notifications by type), so they are never on the public listener.
struct MetricsController {
    let metrics: Metrics

    var endpoints: RouteCollection<BasicRequestContext> {
        RouteCollection(context: BasicRequestContext.self)
            .get("metrics", use: exposition)
    }

    /// Every counter and histogram, in Prometheus' text format.
    func exposition(_ request: Request, context: BasicRequestContext) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
    }
}
