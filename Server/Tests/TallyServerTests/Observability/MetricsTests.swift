import Testing

@testable import TallyServer

/// `/metrics` as Prometheus reads it: one line per series, labels sorted, values escaped.
@Suite struct MetricsTests {
    @Test func aSeriesIsItsLabelsHoweverTheDictionaryWasBuilt() {
        let metrics = Metrics()
        var labels: [String: String] = [:]
        labels["status"] = "200"
        labels["route"] = "/v1/me"
        labels["method"] = "GET"
        metrics.increment("tally_http_requests_total", labels)
        metrics.increment("tally_http_requests_total", ["method": "GET", "route": "/v1/me", "status": "200"], by: 2)
        let lines = metrics.exposition().split(separator: "\n").filter { $0.hasPrefix("tally_http_requests_total") }
        #expect(lines == [#"tally_http_requests_total{method="GET",route="/v1/me",status="200"} 3"#])
        #expect(metrics.value("tally_http_requests_total", ["status": "200", "method": "GET", "route": "/v1/me"]) == 3)
    }

    @Test func aHistogramsLabelsAreSortedWithItsBoundLast() {
        let metrics = Metrics()
        metrics.observe("tally_http_request_duration_seconds", ["route": "/v1/me", "method": "GET"], seconds: 0.003)
        let lines = metrics.exposition().split(separator: "\n").map(String.init)
        #expect(lines.contains(#"tally_http_request_duration_seconds_bucket{method="GET",route="/v1/me",le="0.0025"} 0"#))
        #expect(lines.contains(#"tally_http_request_duration_seconds_bucket{method="GET",route="/v1/me",le="0.005"} 1"#))
        #expect(lines.contains(#"tally_http_request_duration_seconds_bucket{method="GET",route="/v1/me",le="+Inf"} 1"#))
        #expect(lines.contains(#"tally_http_request_duration_seconds_count{method="GET",route="/v1/me"} 1"#))
    }

    @Test func labelValuesAreEscapedAsTheTextFormatRequires() {
        let metrics = Metrics()
        metrics.increment("tally_spends_total", ["currency": "a\"b\\c\nd"])
        #expect(metrics.exposition().contains(#"tally_spends_total{currency="a\"b\\c\nd"} 1"#))
        #expect(metrics.value("tally_spends_total", ["currency": "a\"b\\c\nd"]) == 1)
    }
}
