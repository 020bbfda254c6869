import Foundation
import Testing

@testable import TallyServer

/// How the Metrics page lists a window: by days up to a quarter, by weeks beyond.
@Suite struct ConsoleMetricsTableTests {
    static func report(days: Int) -> MetricsReport {
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        let list = (0..<days).map { index in
            MetricsReport.Day(
                start: start.addingTimeInterval(Double(index) * 86_400), activeSubscriptions: Int64(index), activeTrials: 0, new: 1, renewed: 2,
                churned: 0, trialsStarted: 0)
        }
        let revenue = list.map { MetricsReport.Revenue(day: $0.start, currency: "USD", purchases: 1, milliunits: 1_000, refunds: 0, refundedMilliunits: 0) }
        return MetricsReport(
            from: start, to: start.addingTimeInterval(Double(days) * 86_400), environment: "Production", productIDs: nil, days: list, revenue: revenue,
            mrr: [], trialCohorts: [], retention: [], credits: [])
    }

    @Test func aQuarterIsListedByDaysAndALongerWindowByWeeks() throws {
        let query = MetricsQuery(from: Date(), through: Date())
        var quarter: [String: Any] = [:]
        ConsoleMetricsController.fill(&quarter, Self.report(days: 92), query, .en)
        #expect((quarter["days"] as? [[String: Any]])?.count == 92)
        #expect((quarter["revenue"] as? [[String: Any]])?.count == 92)

        var longer: [String: Any] = [:]
        ConsoleMetricsController.fill(&longer, Self.report(days: 100), query, .en)
        let weeks = try #require(longer["days"] as? [[String: Any]])
        // 14 whole weeks and the 2 days left.
        #expect(weeks.count == 15)
        #expect(weeks[0]["day"] as? String == "2026-01-01 – 2026-01-07")
        // The week's counts add up; what is active is as at its last day.
        #expect(weeks[0]["new"] as? Int64 == 7)
        #expect(weeks[0]["renewed"] as? Int64 == 14)
        #expect(weeks[0]["active"] as? Int64 == 6)
        #expect(weeks[14]["day"] as? String == "2026-04-09 – 2026-04-10")
        let revenue = try #require(longer["revenue"] as? [[String: Any]])
        #expect(revenue.count == 15)
        #expect(revenue[0]["amount"] as? String == "7.00")
        #expect((revenue[0]["purchasesHref"] as? String)?.contains("purchased_from=2026-01-01&purchased_to=2026-01-07") == true)
        // The charts have a point per week too.
        let charts = try #require(longer["revenueCharts"] as? [[String: Any]])
        let chart = try #require(charts.first?["chart"] as? [String: Any])
        #expect((chart["label"] as? String)?.hasPrefix("Revenue per week") == true)
        let lines = try #require((longer["activity"] as? [String: Any])?["lines"] as? [[String: Any]])
        #expect((lines.first?["dots"] as? [[String: Any]])?.count == 15)
        // As at each week's last day: the first point is the 7th day's count, 6.
        #expect((lines.first?["dots"] as? [[String: Any]])?.first?["label"] as? String == "2026-01-01: 6 Active subscriptions")
    }
}
