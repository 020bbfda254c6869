import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import Testing

@testable import TallyServer

/// The console's route table: who may reach which route, and that every refusal is a page
/// in the operator's language.
extension ConsoleTests {
    /// The console's routes as the router holds them, with ids in place of their parameters.
    static func consoleRoutes(_ api: API) -> [(method: HTTPRequest.Method, path: String)] {
        api.router.routes.compactMap { route in
            let path = route.path.description
            guard path.hasPrefix("/console"), route.method != .head else { return nil }
            let concrete = path.split(separator: "/").map { $0.hasPrefix(":") ? "x" : String($0) }.joined(separator: "/")
            return (route.method, "/" + concrete)
        }
    }

    @Test func everyRouteButSignInSendsAVisitorToSignIn() async throws {
        let api = try await API()
        let routes = Self.consoleRoutes(api)
        let open: Set<String> = ["/console/login", "/console/assets/console.css"]
        #expect(routes.filter { !open.contains($0.path) }.count >= 19, "\(routes)")
        #expect(routes.contains { $0.path == "/console/metrics" } && routes.contains { $0.path == "/console/metrics.csv" }, "\(routes)")
        try await api.test { client in
            for route in routes where !open.contains(route.path) {
                let answer = try await client.execute(
                    uri: route.path + "?csrf=x", method: route.method,
                    headers: [.contentType: "application/x-www-form-urlencoded", .origin: "http://localhost"], body: ByteBuffer(string: "csrf=x"))
                #expect(answer.status == .seeOther, "\(route)")
                let back = route.method == .get ? ConsoleQuery.escape(route.path + "?csrf=x") : "/console"
                #expect(answer.headers[.location] == "/console/login?next=" + back, "\(route)")
            }
        }
        #expect(try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.isEmpty)
    }

    @Test func aReadOnlyOperatorIsRefusedEveryChangeAndNothingIsAudited() async throws {
        let api = try await API()
        try await Self.addOperator(api, "bob", role: .readOnly)
        let user = try await api.harness.user()
        let grant = try await api.harness.storage.console.grantEntitlement(
            actor: "test", userID: user.id, entitlement: "pro", until: Harness.start.addingTimeInterval(86_400), reason: "r", idempotencyKey: "g")
        let before = try await Self.credits(api, user.id).available
        let changes = Self.consoleRoutes(api).filter { $0.method == .post && !["/console/login", "/console/logout"].contains($0.path) }
        #expect(changes.count == 3, "\(changes)")
        try await api.test { client in
            var bob = Browser(client: client)
            _ = try await bob.signIn(operator: "bob")
            let csrf = try Self.field("csrf", in: Self.text(try await bob.get("/console")))
            let form = [
                "csrf": csrf, "idempotency_key": "k", "currency": "credits", "amount": "5", "reason": "r", "entitlement": "pro",
                "until": "2030-01-01",
            ]
            for change in changes {
                let path = change.path.replacingOccurrences(of: "users/x", with: "users/\(user.id)")
                    .replacingOccurrences(of: "entitlements/x", with: "entitlements/\(grant.id)")
                let refused = try await bob.post(path, form)
                #expect(refused.status == .forbidden, "\(path)")
                #expect(Self.alert(Self.text(refused)) == ConsoleText.text("forbidden_read_only", .en), "\(path)")
            }
        }
        #expect(try await Self.credits(api, user.id).available == before)
        #expect(try await api.harness.storage.console.grantedEntitlements(userID: user.id).allSatisfy { $0.revokedAt == nil })
        let bobs = try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.filter { $0.actor == "operator:bob" }
        #expect(bobs.map(\.action) == ["sign_in"])
    }

    @Test func anExpiredSessionIsSentToSignInFromPagesFormsAndExports() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let csrf = try Self.field("csrf", in: Self.text(try await browser.get("/console")))
            api.harness.clock.set(Harness.start.addingTimeInterval(ConsoleSessionCookie.lifetime + 1))
            let export = try await browser.get("/console/audit.csv?csrf=\(csrf)")
            #expect(export.status == .seeOther)
            #expect(export.headers[.location] == "/console/login?next=/console/audit.csv%3Fcsrf%3D\(ConsoleQuery.escape(csrf))")
            let out = try await browser.post("/console/logout", ["csrf": csrf])
            #expect(out.status == .seeOther)
            #expect(out.headers[.location] == "/console/login?next=/console")
        }
        #expect(try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.allSatisfy { $0.action != "export" && $0.action != "sign_out" })
    }

    @Test func errorPagesSpeakTheOperatorsLanguage() async throws {
        let api = try await API()
        try await Self.addOperator(api, "bob", role: .readOnly)
        let user = try await api.harness.user()
        try await api.test { client in
            var bob = Browser(client: client)
            _ = try await bob.signIn(operator: "bob")
            let csrf = try Self.field("csrf", in: Self.text(try await bob.get("/console?lang=uk")))
            #expect(bob.cookies[ConsoleSessionCookie.languageCookie] == "uk")
            let refusals: [(TestResponse, String)] = [
                (try await bob.get("/console/users/nobody"), "not_found"),
                (try await bob.get("/console/ledger.csv"), "export_refused"),
                (try await bob.post("/console/users/\(user.id)/adjustments", ["csrf": csrf]), "forbidden_read_only"),
                (try await bob.post("/console/logout", ["csrf": "forged"]), "csrf_refused"),
            ]
            for (refused, key) in refusals {
                let html = Self.text(refused)
                #expect(Self.alert(html) == ConsoleText.text(key, .uk), "\(key)")
                #expect(ConsoleText.text(key, .uk) != ConsoleText.text(key, .en))
                #expect(html.contains("<html lang=\"uk\""), "\(key)")
                // Still signed in: the page has the operator's navigation, and leads back to the overview.
                #expect(html.contains("operator:bob") && html.contains("<p><a href=\"/console\">"), "\(key)")
            }
            // A visitor's refusal leads back to the sign-in page.
            var visitor = Browser(client: client, cookies: [ConsoleSessionCookie.languageCookie: "uk"])
            let forged = try await visitor.post("/console/login", ["operator": "bob", "password": Self.password], origin: "http://evil.test")
            #expect(Self.alert(Self.text(forged)) == ConsoleText.text("csrf_refused", .uk))
            #expect(Self.text(forged).contains("<p><a href=\"/console/login\">"))
        }
    }

    @Test func aDatabaseThatDoesNotAnswerIsAPageNotAnError() async throws {
        var outage: OutageDatabase?
        let api = try await API(database: { database in
            let wrapped = OutageDatabase(database)
            outage = wrapped
            return wrapped
        })
        let database = try #require(outage)
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let csrf = try Self.field("csrf", in: Self.text(try await browser.get("/console?lang=uk")))
            database.setDown(true)
            for answer in [
                try await browser.get("/console"), try await browser.get("/console/audit.csv?csrf=\(csrf)"),
                try await browser.post("/console/logout", ["csrf": csrf]),
            ] {
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.headers[.contentType] == "text/html; charset=utf-8")
                #expect(Self.alert(Self.text(answer)) == ConsoleText.text("unavailable", .uk))
            }
            database.setDown(false)
            #expect(try await browser.get("/console").status == .ok)
        }
    }
}
