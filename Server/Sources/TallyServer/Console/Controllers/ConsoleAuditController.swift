import Foundation
import Hummingbird
import TallyCore

/// The console's audit log: every sign-in, change and export, newest first, and its CSV export.
struct ConsoleAuditController: Sendable {
    let console: ConsoleStore
    let pages: ConsolePages
    let export: ConsoleExport

    var endpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("audit") { request, context in try await auditPage(request, context) }
    }

    var exportEndpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("audit.csv") { _, context in try await auditCSV(context) }
    }

    func auditPage(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        var view = pages.view(request, context, page: "audit", title: ConsoleText.text("nav_audit", context.language))
        let parameters = ConsoleQuery.fields(request)
        let limit = try ConsoleQuery.limit(parameters)
        let before = try ConsoleQuery.value(parameters, "before").map { text in
            guard let id = Int64(text), id > 0 else { throw TallyAPIError(.invalidRequest, "before must be a positive entry number") }
            return id
        }
        let page = try await console.auditLog(limit: limit, before: before)
        view["exportHref"] = "/console/audit.csv" + ConsoleQuery.string(["csrf": context.csrf])
        view["rows"] = page.entries.map(Self.row)
        if let next = page.next { view["nextHref"] = "/console/audit" + ConsoleQuery.string(["before": String(next), "limit": String(limit)]) }
        if before != nil { view["firstHref"] = "/console/audit" + ConsoleQuery.string(["limit": String(limit)]) }
        return try pages.html(view, "audit")
    }

    static func row(_ entry: ConsoleAuditEntry) -> [String: Any] {
        [
            "id": entry.id, "at": ConsoleFormat.time(entry.at), "actor": entry.actor, "action": entry.action, "target": entry.target ?? "",
            "before": entry.before ?? "", "after": entry.after ?? "", "detail": entry.detail ?? "",
        ]
    }

    static let header = ["id", "at", "actor", "action", "target", "before", "after", "detail"]

    func auditCSV(_ context: ConsoleOperatorContext) async throws -> Response {
        let console = console
        return try await export.answer("audit", for: context, header: Self.header) { (before: Int64?) in
            let page = try await console.auditLog(limit: 500, before: before)
            let lines = page.entries.map { entry -> [String?] in
                [String(entry.id), ConsoleFormat.time(entry.at), entry.actor, entry.action, entry.target, entry.before, entry.after, entry.detail]
            }
            return (lines, page.next)
        }
    }
}
