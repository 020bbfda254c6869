import Foundation
import HTTPTypes
import Hummingbird
import TallyCore

/// A user in the console: the search that finds them, their page (balances, entitlements,
/// subscriptions, grants and a timeline), and the admin's changes to them (a credit
/// adjustment, an entitlement granted or revoked), each written to the audit log.
struct ConsoleUsersController: Sendable {
    let admin: AdminStore
    let console: ConsoleStore
    let catalog: TallyCatalog
    let pages: ConsolePages
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .get("users/:id") { request, context in try await userPage(request, context, id: try Self.user(context)) }
            .get("search") { request, context in try await search(request, context) }
    }

    /// The changes: forms an admin sends from a user's page.
    var changeEndpoints: RouteCollection<ConsoleOperatorContext> {
        RouteCollection(context: ConsoleOperatorContext.self)
            .post("users/:id/adjustments") { request, context in try await adjust(request, context, id: try Self.user(context)) }
            .post("users/:id/entitlements") { request, context in try await grant(request, context, id: try Self.user(context)) }
            .post("users/:id/entitlements/:grant/revoke") { request, context in
                try await revoke(request, context, id: try Self.user(context), grantID: try ConsoleQuery.identifier(context.parameters.require("grant")))
            }
    }

    static func user(_ context: ConsoleOperatorContext) throws -> String {
        try ConsoleQuery.identifier(context.parameters.require("id"))
    }

    func userPage(
        _ request: Request, _ context: ConsoleOperatorContext, id: String, notice: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let language = context.language
        guard id.count <= 128, let account = try? await admin.adminUser(id: id) else { throw ConsoleRefusal.notFound }
        var view = pages.view(request, context, page: "user", title: "\(ConsoleText.text("user_title", language)) \(id)")
        if let notice { view["notice"] = notice }
        if let error { view["error"] = error }
        view["account"] = [
            "userID": account.userID, "appUserID": account.appUserID ?? "—", "appAccountToken": account.appAccountToken.uuidString.lowercased(),
            "created": ConsoleFormat.time(account.createdAt),
        ]
        let names = Dictionary(catalog.currencies.map { ($0.code, $0.names[language.rawValue] ?? $0.code) }, uniquingKeysWith: { first, _ in first })
        view["balances"] = account.balances.map { balance -> [String: Any] in
            [
                "currency": balance.currency, "name": "\(names[balance.currency] ?? balance.currency) (\(balance.currency))",
                "available": balance.available, "held": balance.held, "debt": balance.debt, "spendable": balance.spendable,
                "allowance": balance.allowance.map { "\($0.granted - $0.used - $0.held) / \($0.granted) → \(ConsoleFormat.time($0.periodEnd))" } ?? "",
            ]
        }
        let yes = ConsoleText.text("yes", language)
        let no = ConsoleText.text("no", language)
        view["entitlements"] = account.entitlements.map { entitlement -> [String: Any] in
            [
                "id": entitlement.id, "active": entitlement.active ? yes : no, "productID": entitlement.productID,
                "expires": entitlement.expiresAt.map(ConsoleFormat.time) ?? "—",
            ]
        }
        view["subscriptions"] = account.subscriptions.map { subscription -> [String: Any] in
            [
                "originalTransactionID": subscription.originalTransactionID, "productID": subscription.productID,
                "status": subscription.status.rawValue, "expires": subscription.expiresAt.map(ConsoleFormat.time) ?? "—",
                "willRenew": subscription.willRenew.map { $0 ? yes : no } ?? "—",
            ]
        }
        let canChange = context.session.role == .admin
        view["grants"] = try await console.grantedEntitlements(userID: id).map { grant -> [String: Any] in
            [
                "id": grant.id, "userID": id, "entitlement": grant.entitlement, "until": ConsoleFormat.time(grant.expiresAt),
                "reason": grant.reason, "grantedBy": grant.grantedBy,
                "revoked": grant.revokedAt.map { "\(ConsoleFormat.time($0)) (\(grant.revokedBy ?? ""))" } ?? "",
                "revocable": canChange && grant.revokedAt == nil && grant.expiresAt > now(),
            ]
        }
        view["currencyOptions"] = catalog.currencies.map { ["value": $0.code, "label": "\(names[$0.code] ?? $0.code) (\($0.code))"] }
        view["entitlementOptions"] = Array(Set(catalog.products.flatMap(\.entitlements))).sorted()
        view["adjustKey"] = UUID().uuidString.lowercased()
        view["grantKey"] = UUID().uuidString.lowercased()
        view["timeline"] = try await console.timeline(userID: id, limit: 200).map { event -> [String: Any] in
            var row: [String: Any] = [
                "kind": event.kind, "kindLabel": ConsoleText.text("kind_\(event.kind)", language), "at": ConsoleFormat.time(event.at),
                "summary": Self.eventSummary(event, language), "detail": Self.eventDetail(event, language),
            ]
            if let transaction = event.transactionID { row["transactionID"] = transaction }
            return row
        }
        return try pages.html(view, "user", status: status)
    }

    /// A timeline event's summary in the page's language: a grant says until when.
    static func eventSummary(_ event: ConsoleEvent, _ language: ConsoleText.Language) -> String {
        guard let until = event.until else { return event.summary }
        return "\(event.summary) \(ConsoleText.text("event_until", language)) \(ConsoleFormat.time(until))"
    }

    /// A timeline event's detail in the page's language: the environment and arrival of a
    /// purchase, the reason of a refund, else the text kept with the event.
    static func eventDetail(_ event: ConsoleEvent, _ language: ConsoleText.Language) -> String {
        var parts: [String] = []
        if let environment = event.environment {
            parts.append(ConsolePages.environments.contains(environment) ? ConsoleText.text("environment_\(environment)", language) : environment)
        }
        if let received = event.receivedAt { parts.append("\(ConsoleText.text("event_received", language)) \(ConsoleFormat.time(received))") }
        if let reason = event.revocationReason {
            parts.append(
                [0, 1].contains(reason)
                    ? ConsoleText.text("revocation_reason_\(reason)", language)
                    : "\(ConsoleText.text("revocation_reason", language)) \(reason)")
        }
        if let detail = event.detail { parts.append(detail) }
        return parts.joined(separator: " · ")
    }

    /// Finds what the text names: a user (their page), else transactions (the filtered list).
    func search(_ request: Request, _ context: ConsoleOperatorContext) async throws -> Response {
        let text = (ConsoleQuery.value(ConsoleQuery.fields(request), "q") ?? "").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.count <= 200 else { return ConsolePages.redirect("/console/transactions") }
        let matches = try await console.findUsers(text)
        if matches.count == 1 { return ConsolePages.redirect("/console/users/" + ConsoleQuery.pathEscape(matches[0].userID)) }
        guard !matches.isEmpty else { return ConsolePages.redirect("/console/transactions" + ConsoleQuery.string(["q": text])) }
        // Several users have this text as one id or another: the operator chooses, best match first.
        let language = context.language
        var view = pages.view(request, context, page: "search", title: ConsoleText.text("search_choose_title", language))
        view["text"] = text
        view["matches"] = matches.map { match -> [String: Any] in
            [
                "href": "/console/users/" + ConsoleQuery.pathEscape(match.userID), "userID": match.userID,
                "field": ConsoleText.text(Self.matchKeys[match.field] ?? "user_id", language),
            ]
        }
        view["transactionsHref"] = "/console/transactions" + ConsoleQuery.string(["q": text])
        return try pages.html(view, "search")
    }

    /// The text naming each field a search matches.
    static let matchKeys: [ConsoleUserMatch.Field: String] = [.userID: "user_id", .appAccountToken: "app_account_token", .appUserID: "app_user_id"]

    // MARK: - Changes

    func adjust(_ request: Request, _ context: ConsoleOperatorContext, id: String) async throws -> Response {
        let form = context.form
        guard let amount = ConsoleFormat.parseAmount((form["amount"] ?? "").trimmingCharacters(in: .whitespaces)) else {
            return try await userPage(request, context, id: id, error: ConsoleText.text("amount_invalid", context.language), status: .badRequest)
        }
        return try await change(request, context, id: id) {
            let result = try await console.consoleAdjust(
                actor: context.actor, userID: id, amount: Amount(currency: form["currency"] ?? "", amount: amount),
                reason: (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines), idempotencyKey: form["idempotency_key"] ?? "")
            return result.replayed ? "adjust_replayed" : "adjusted"
        }
    }

    func grant(_ request: Request, _ context: ConsoleOperatorContext, id: String) async throws -> Response {
        let form = context.form
        guard let day = form["until"].flatMap(ConsoleFormat.parseDay) else {
            return try await userPage(request, context, id: id, error: ConsoleText.text("date_invalid", context.language), status: .badRequest)
        }
        return try await change(request, context, id: id) {
            // Until the end of the day chosen, in UTC.
            let result = try await console.grantEntitlement(
                actor: context.actor, userID: id, entitlement: form["entitlement"] ?? "", until: day.addingTimeInterval(86_400),
                reason: (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines), idempotencyKey: form["idempotency_key"] ?? "")
            return result.replayed ? "grant_replayed" : "granted"
        }
    }

    func revoke(_ request: Request, _ context: ConsoleOperatorContext, id: String, grantID: String) async throws -> Response {
        guard grantID.count <= 64 else { throw ConsoleRefusal.notFound }
        _ = try await console.revokeEntitlement(actor: context.actor, userID: id, grantID: grantID)
        return try await userPage(request, context, id: id, notice: ConsoleText.text("revoked_notice", context.language))
    }

    /// The user's page after a change: with the notice `work` names, or with the refusal of
    /// the input (an unknown user stays a 404 page).
    func change(
        _ request: Request, _ context: ConsoleOperatorContext, id: String, _ work: () async throws -> String
    ) async throws -> Response {
        do {
            let notice = try await work()
            return try await userPage(request, context, id: id, notice: ConsoleText.text(notice, context.language))
        } catch let refusal as StorageError where refusal.code != .notFound && TallyAPIError(refusal).status.code < 500 {
            // Storage's refusal of the input, shown on the page as the API would answer it.
            let error = TallyAPIError(refusal)
            return try await userPage(
                request, context, id: id, error: ConsolePages.message(error, context.language), status: .init(code: error.status.code))
        }
    }
}
