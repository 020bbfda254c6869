import Foundation
import Hummingbird
import TallyCore

/// The App Store's notifications as the server received them: the list with each one's
/// outcome, one notification decoded, and the list's CSV export.
struct ConsoleNotificationsController: Sendable {
    let admin: AdminStore
    let console: ConsoleStore
    let pages: ConsolePages
    let export: ConsoleExport
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("notifications") { request, context in try await notificationsPage(request, context) }
            .get("notifications/:uuid") { request, context in
                try await notificationPage(request, context, uuid: try ConsoleQuery.identifier(context.parameters.require("uuid")))
            }
    }

    var exportEndpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("notifications.csv") { request, context in try await notificationsCSV(request, context) }
    }

    /// The `outcome` filter: nil for every notification.
    /// - Throws: ``TallyAPIError`` `invalid_request` for an outcome notifications do not have.
    static func outcome(_ fields: [String: String]) throws -> String? {
        let outcome = ConsoleQuery.value(fields, "outcome")
        guard outcome == nil || NotificationOutcome(rawValue: outcome!) != nil else {
            throw TallyAPIError(.invalidRequest, "outcome must be applied, duplicate or recorded")
        }
        return outcome
    }

    func notificationsPage(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let language = context.language
        var view = pages.view(request, context, page: "notifications", title: ConsoleText.text("nav_notifications", language))
        let parameters = ConsoleQuery.fields(request)
        let limit = try ConsoleQuery.limit(parameters)
        let outcome = try Self.outcome(parameters)
        view["limit"] = limit
        view["outcomes"] = ["applied", "duplicate", "recorded"].map { ConsolePages.option($0, $0, outcome) }
        let cursor = try ConsoleQuery.value(parameters, "after").map { text in
            guard let cursor = AdminCursor(text: text) else { throw TallyAPIError(.invalidRequest, "after is not a position of this list") }
            return cursor
        }
        let page = try await admin.adminNotifications(outcome: outcome, limit: limit, cursor: cursor)
        view["rows"] = page.notifications.map { notification -> [String: Any] in
            [
                "uuid": notification.notificationUuid, "received": ConsoleFormat.time(notification.receivedAt),
                "type": notification.notificationType + (notification.subtype.map { " / \($0)" } ?? ""), "outcome": notification.outcome,
                "transactionID": notification.transactionID ?? "", "detail": notification.detail ?? "",
            ]
        }
        view["refused"] = try await console.verificationFailures(from: now().addingTimeInterval(-30 * 86_400), to: now())
            .filter { $0.currency == "notification" }.reduce(0) { $0 + $1.count }
        var kept: [String: String] = ["limit": String(limit)]
        if let outcome { kept["outcome"] = outcome }
        if let next = page.nextCursor {
            view["nextHref"] = "/console/notifications" + ConsoleQuery.string(kept.merging(["after": next]) { $1 })
        }
        if cursor != nil { view["firstHref"] = "/console/notifications" + ConsoleQuery.string(kept) }
        let exported = (outcome.map { ["outcome": $0] } ?? [:]).merging(["csrf": context.csrf]) { $1 }
        view["exportHref"] = "/console/notifications.csv" + ConsoleQuery.string(exported)
        return try pages.html(view, "notifications")
    }

    func notificationPage(_ request: Request, _ context: ConsoleOperatorContext, uuid: String) async throws -> Response {
        guard uuid.count <= 64, let stored = try await console.notification(uuid: uuid) else { throw ConsoleRefusal.notFound }
        var view = pages.view(request, context, page: "notification", title: "\(ConsoleText.text("notification_title", context.language)) \(uuid)")
        let notification = stored.notification
        view["uuid"] = notification.notificationUuid
        view["type"] = notification.notificationType + (notification.subtype.map { " / \($0)" } ?? "")
        view["outcome"] = notification.outcome + (notification.detail.map { ": \($0)" } ?? "")
        view["environment"] = stored.environment ?? "—"
        if let transaction = notification.transactionID { view["transactionID"] = transaction }
        view["signed"] = stored.signedDate.map(ConsoleFormat.time) ?? "—"
        view["received"] = ConsoleFormat.time(notification.receivedAt)
        var parts: [[String: Any]] = []
        if let payload = Self.jwsPayload(stored.jws) {
            parts.append(["name": "notification", "json": Self.pretty(payload)])
            let data = payload["data"] as? [String: Any]
            for key in ["signedTransactionInfo", "signedRenewalInfo"] {
                if let jws = data?[key] as? String, let inner = Self.jwsPayload(jws) { parts.append(["name": key, "json": Self.pretty(inner)]) }
            }
        }
        view["parts"] = parts
        return try pages.html(view, "notification")
    }

    static let header = ["notification_uuid", "received_at", "type", "subtype", "outcome", "transaction_id", "detail"]

    func notificationsCSV(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let outcome = try Self.outcome(ConsoleQuery.fields(request))
        let admin = admin
        return try await export.answer("notifications", for: context, detail: outcome.map { "outcome=\($0)" }, header: Self.header) {
            (cursor: AdminCursor?) in
            let page = try await admin.adminNotifications(outcome: outcome, limit: 200, cursor: cursor)
            let lines = page.notifications.map { row -> [String?] in
                [row.notificationUuid, ConsoleFormat.time(row.receivedAt), row.notificationType, row.subtype, row.outcome, row.transactionID, row.detail]
            }
            return (lines, page.nextCursor.flatMap { AdminCursor(text: $0) })
        }
    }

    /// The payload of a JWS as JSON, without checking it (it was verified when it arrived).
    static func jwsPayload(_ jws: String) -> [String: Any]? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64.decode(parts[1].utf8, alphabet: .url) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    static func pretty(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
