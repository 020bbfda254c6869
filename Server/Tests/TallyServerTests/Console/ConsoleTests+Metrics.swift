import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import Testing

@testable import TallyServer

/// The metrics page and its exports, and the transactions' filters its links use.
extension ConsoleTests {
    /// The `href` of every link of a class, as a browser reads it.
    static func links(_ name: String, in html: String) -> [String] {
        html.components(separatedBy: "class=\"\(name)\" href=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// The part of a page from the table with this id to its end.
    static func table(_ id: String, in html: String) -> String {
        guard let start = html.range(of: "<table id=\"\(id)\"") else { return "" }
        let rest = html[start.lowerBound...]
        return String(rest[..<(rest.range(of: "</table>")?.upperBound ?? rest.endIndex)])
    }

    @Test(arguments: Backend.available)
    func theMetricsPageShowsAPurchasesRevenueToAViewerInBothLanguages(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "bob", role: .readOnly)
        let harness = api.harness
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        let price = try #require(verified.payload.price)
        let currency = try #require(verified.payload.currency)
        let transactionID = try #require(verified.payload.transactionID)
        try await api.test { client in
            var bob = Browser(client: client)
            _ = try await bob.signIn(operator: "bob")
            let page = try await bob.get("/console/metrics?environment=Sandbox")
            #expect(page.status == .ok)
            let html = Self.text(page)
            #expect(html.contains("id=\"page-metrics\"") && html.contains("<a id=\"nav-metrics\" href=\"/console/metrics\" aria-current=\"page\">Metrics</a>"))
            let revenue = Self.table("revenue", in: html)
            #expect(Self.cells("revenue-amount", in: revenue) == [ConsoleFormat.milliunits(price)])
            #expect(Self.cells("currency", in: revenue) == [currency])
            #expect(html.contains("class=\"chart revenue-chart\" data-currency=\"\(currency)\""))
            #expect(html.contains("<h2>Revenue and refunds</h2>"))

            // The count links to the very transactions it counts.
            let link = try #require(Self.links("purchases-link", in: revenue).first)
            #expect(link.contains("purchased_from=2026-03-01") && link.contains("environment=Sandbox"))
            #expect(Self.cells("transaction-id", in: Self.text(try await bob.get(link))) == [transactionID])

            let ukrainian = Self.text(try await bob.get("/console/metrics?environment=Sandbox&lang=uk"))
            #expect(ukrainian.contains("<html lang=\"uk\">") && ukrainian.contains(">Метрики</a>"))
            #expect(ukrainian.contains("<h2>Виручка й повернення</h2>"))
            #expect(Self.cells("revenue-amount", in: Self.table("revenue", in: ukrainian)) == [ConsoleFormat.milliunits(price)])

            // Production by default: the sandbox's purchase is not in it.
            let production = Self.text(try await bob.get("/console/metrics?lang=en"))
            #expect(production.contains("<option value=\"Production\" selected>"))
            #expect(Self.cells("revenue-amount", in: Self.table("revenue", in: production)).isEmpty)

            let bad = try await bob.get("/console/metrics?window=2d")
            #expect(bad.status == .badRequest)
            #expect(Self.alert(Self.text(bad))?.contains("window must be 7d, 30d, 90d or 365d") == true)
            #expect(try await bob.get("/console/metrics?group=%07").status == .badRequest)
            // With a group, the links keep to it.
            let grouped = Self.text(try await bob.get("/console/metrics?environment=Sandbox&group=g.1"))
            #expect(Self.links("day-link", in: grouped).allSatisfy { $0.contains("group=g.1") && $0.contains("environment=Sandbox") })
        }
    }

    @Test func eachMetricsTableExportsAsCSVAndIsAudited() async throws {
        let api = try await API()
        try await Self.addOperator(api, "bob", role: .readOnly)
        let harness = api.harness
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: user)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        let price = try #require(verified.payload.price)
        let headers = [
            "days": "day,active_subscriptions,active_trials,new,renewed,churned,trials_started",
            "revenue": "day,currency,purchases,milliunits,refunds,refunded_milliunits",
            "mrr": "currency,start_milliunits,new,expansion,contraction,churned,end_milliunits",
            "trials": "month,started,converted", "retention": "month,subscribers", "credits": "currency,sold,spent,outstanding",
        ]
        try await api.test { client in
            var bob = Browser(client: client)
            _ = try await bob.signIn(operator: "bob")
            let html = Self.text(try await bob.get("/console/metrics?environment=Sandbox&window=7d"))
            let csrf = try Self.field("csrf", in: html)
            for (table, header) in headers {
                let href = try #require(
                    html.components(separatedBy: "id=\"export-\(table)\" href=\"").dropFirst().first.map {
                        String($0.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
                    })
                #expect(href.contains("window=7d") && href.contains("environment=Sandbox") && href.contains("csrf="))
                let answer = try await bob.get(href)
                #expect(answer.status == .ok, "\(table)")
                #expect(answer.headers[.contentType] == "text/csv; charset=utf-8")
                #expect(answer.headers[.contentDisposition] == "attachment; filename=\"tally-metrics-\(table).csv\"")
                let lines = Self.text(answer).split(separator: "\r\n")
                #expect(lines.first.map { $0.hasPrefix(header) } == true, "\(table): \(lines.first ?? "")")
                if table == "days" { #expect(lines.count == 1 + 7) }
                if table == "revenue" { #expect(lines.dropFirst().map { $0.split(separator: ",")[3] } == [Substring(String(price))]) }
            }
            let unknown = try await bob.get("/console/metrics.csv?table=users&csrf=\(csrf)")
            #expect(unknown.status == .badRequest)
            #expect(try await bob.get("/console/metrics.csv?table=days").status == .forbidden, "an export needs the session's token")
        }
        let exports = try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.filter { $0.action == "export" }
        #expect(Set(exports.compactMap(\.target)) == Set(headers.keys.map { "metrics-\($0)" }))
        #expect(exports.allSatisfy { $0.actor == "operator:bob" && $0.detail?.contains("environment=Sandbox") == true })
    }

    @Test(arguments: Backend.available)
    func transactionsFilterByTheDayBoughtAndTheDayRefunded(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "alice", role: .admin)
        let harness = api.harness
        let user = try await harness.user()
        // Bought on 1 March, received on 2 March; another bought and received on 2 March.
        let (late, lateJWS) = try await harness.buy("com.tally.photo.credits.10", for: user)
        try await harness.advance(by: .seconds(86_400))
        _ = try await harness.storage.purchases.deliver(late, jws: lateJWS, presenter: user, orderID: nil)
        let (prompt, promptJWS) = try await harness.buy("com.tally.photo.credits.10", for: user)
        _ = try await harness.storage.purchases.deliver(prompt, jws: promptJWS, presenter: user, orderID: nil)
        let lateID = try #require(late.payload.transactionID)
        let promptID = try #require(prompt.payload.transactionID)
        let currency = try #require(prompt.payload.currency)
        // The second is refunded on 3 March.
        try await harness.advance(by: .seconds(86_400))
        try await harness.store.refund(transactionID: promptID)
        let refund = try #require(
            try await harness.notifications().first { $0.0.payload.notificationType == .refund && $0.0.transaction?.payload.transactionID == promptID })
        try await api.test { client in
            let posted = try await client.post(
                "/v1/notifications/appstore", token: nil, body: ByteBuffer(string: "{\"signedPayload\":\"\(refund.1)\"}"))
            #expect(posted.status == .ok)
            var alice = Browser(client: client)
            _ = try await alice.signIn(operator: "alice")
            func listed(_ query: String) async throws -> Set<String> {
                Set(Self.cells("transaction-id", in: Self.text(try await alice.get("/console/transactions?\(query)"))))
            }
            #expect(try await listed("from=2026-03-02&to=2026-03-02") == [lateID, promptID], "received on 2 March")
            #expect(try await listed("purchased_from=2026-03-01&purchased_to=2026-03-01") == [lateID])
            #expect(try await listed("purchased_from=2026-03-02") == [promptID])
            #expect(try await listed("purchased_to=2026-03-02") == [lateID, promptID])
            #expect(try await listed("revoked_from=2026-03-03&revoked_to=2026-03-03") == [promptID])
            #expect(try await listed("revoked_from=2026-03-02&revoked_to=2026-03-02").isEmpty)
            #expect(try await listed("currency=\(currency)") == [lateID, promptID])
            #expect(try await listed("currency=XXX").isEmpty)
            // A subscription's group, as Apple signed it.
            let (subscription, subscriptionJWS) = try await harness.buy("com.tally.pro.monthly", for: user)
            _ = try await harness.storage.purchases.deliver(subscription, jws: subscriptionJWS, presenter: user, orderID: nil)
            let group = try #require(subscription.payload.subscriptionGroupIdentifier)
            #expect(try await listed("group=\(group)") == [try #require(subscription.payload.transactionID)])
            #expect(try await listed("group=another-group").isEmpty)
            let page = Self.text(try await alice.get("/console/transactions?purchased_from=2026-03-01"))
            #expect(page.contains("name=\"purchased_from\" value=\"2026-03-01\""), "the form keeps the filter")
            let bad = try await alice.get("/console/transactions?purchased_to=March")
            #expect(bad.status == .badRequest)
            #expect(Self.alert(Self.text(bad))?.contains("purchased_to must be a date written YYYY-MM-DD") == true)
        }
    }
}
