import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyTesting
import Testing

@testable import TallyServer

/// The web console as an operator's browser uses it: sessions, CSRF, roles, bad input, lists,
/// exports and languages, over the in-memory server (its address is `http://localhost`).
@Suite struct ConsoleTests {
    static let password = "correct horse battery"

    /// A browser: keeps the session and language cookies and reads pages.
    struct Browser {
        let client: any TestClientProtocol
        var cookies: [String: String] = [:]
        static let origin = "http://localhost"

        mutating func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
            var headers = headers
            if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            let response = try await client.execute(uri: uri, method: .get, headers: headers)
            keep(response)
            return response
        }

        /// Posts a form; `origin: nil` sends neither Origin nor Referer.
        mutating func post(_ uri: String, _ fields: [String: String], origin: String? = Browser.origin) async throws -> TestResponse {
            var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            if let origin { headers[.origin] = origin }
            if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
            let response = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
            keep(response)
            return response
        }

        mutating func keep(_ response: TestResponse) {
            for field in response.headers where field.name == .setCookie {
                let pair = field.value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let (name, value) = (String(pair[0]), String(pair[1]))
                if value.isEmpty || field.value.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
            }
        }

        mutating func signIn(operator name: String, password: String = ConsoleTests.password) async throws -> TestResponse {
            try await post("/console/login", ["operator": name, "password": password])
        }
    }

    static func text(_ response: TestResponse) -> String { String(buffer: response.body) }

    /// The value of a hidden field of the page (the first one of that name).
    static func field(_ name: String, in html: String) throws -> String {
        let marker = "name=\"\(name)\" value=\""
        let start = try #require(html.range(of: marker)).upperBound
        return String(html[start...].prefix { $0 != "\"" })
    }

    static func alert(_ html: String) -> String? {
        guard let start = html.range(of: "role=\"alert\">")?.upperBound else { return nil }
        return String(html[start...].prefix { $0 != "<" })
    }

    static func notice(_ html: String) -> String? {
        guard let start = html.range(of: "role=\"status\">")?.upperBound else { return nil }
        return String(html[start...].prefix { $0 != "<" })
    }

    static func addOperator(_ api: API, _ name: String, role: ConsoleRole) async throws {
        try await api.harness.storage.console.saveOperator(name: name, passwordHash: try ConsolePasswords.hash(password), role: role)
    }

    static func credits(_ api: API, _ userID: String) async throws -> Balance {
        let user = try #require(try await api.harness.storage.users.user(id: userID))
        return try await api.harness.balance(user, "credits")
    }

    // MARK: - Sessions

    @Test func signInWithAnOperatorOrTheSecretKeyAndOut() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            var browser = Browser(client: client)
            let away = try await browser.get("/console/transactions?kind=consumable")
            #expect(away.status == .seeOther)
            #expect(away.headers[.location] == "/console/login?next=/console/transactions%3Fkind%3Dconsumable")

            let wrong = try await browser.signIn(operator: "alice", password: "not the password")
            #expect(wrong.status == .unauthorized)
            #expect(Self.alert(Self.text(wrong)) == "The operator or the password is wrong.")
            #expect(try await browser.signIn(operator: "nobody").status == .unauthorized)
            #expect(browser.cookies[ConsoleSessionCookie.name] == nil)

            let right = try await browser.post(
                "/console/login?next=/console/transactions%3Fkind%3Dconsumable", ["operator": "alice", "password": Self.password])
            #expect(right.status == .seeOther)
            #expect(right.headers[.location] == "/console/transactions?kind=consumable")
            let cookie = try #require(right.headers[values: .setCookie].first { $0.hasPrefix("tally_console=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/console"))
            #expect(cookie.contains("Max-Age=43200"))
            #expect(!cookie.contains("Secure"), "plain HTTP, no trusted proxy: a Secure cookie would never come back")

            let page = try await browser.get("/console")
            #expect(page.status == .ok)
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
            #expect(page.headers[.cacheControl] == "no-store")
            let html = Self.text(page)
            #expect(html.contains("id=\"page-overview\"") && html.contains("operator:alice"))

            // Signing out ends the session in the database, not only in this browser.
            let session = try #require(browser.cookies[ConsoleSessionCookie.name])
            let out = try await browser.post("/console/logout", ["csrf": try Self.field("csrf", in: html)])
            #expect(out.status == .seeOther)
            #expect(browser.cookies[ConsoleSessionCookie.name] == nil)
            browser.cookies[ConsoleSessionCookie.name] = session
            #expect(try await browser.get("/console").status == .seeOther)

            // The secret key signs in as an admin with an empty operator name; a wrong key does not.
            var keyBrowser = Browser(client: client)
            #expect(try await keyBrowser.post("/console/login", ["operator": "", "password": "wrong"]).status == .unauthorized)
            #expect(try await keyBrowser.post("/console/login", ["operator": "", "password": API.secret]).status == .seeOther)
            #expect(Self.text(try await keyBrowser.get("/console")).contains("secret-key"))

            // Sign-in forms from elsewhere are refused too (login CSRF).
            var elsewhere = Browser(client: client)
            let forged = try await elsewhere.post("/console/login", ["operator": "alice", "password": Self.password], origin: "http://evil.test")
            #expect(forged.status == .forbidden)
            #expect(elsewhere.cookies.isEmpty)
        }
        let audit = try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.map { "\($0.actor) \($0.action)" }
        #expect(audit.contains("operator:alice sign_in_failed") && audit.contains("operator:nobody sign_in_failed"))
        #expect(audit.contains("operator:alice sign_in") && audit.contains("operator:alice sign_out") && audit.contains("secret-key sign_in"))
    }

    @Test func aSessionExpiresAfterTwelveHours() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            var browser = Browser(client: client)
            #expect(try await browser.signIn(operator: "alice").status == .seeOther)
            api.harness.clock.set(Harness.start.addingTimeInterval(11 * 3600))
            #expect(try await browser.get("/console").status == .ok)
            api.harness.clock.set(Harness.start.addingTimeInterval(12 * 3600 + 1))
            let expired = try await browser.get("/console")
            #expect(expired.status == .seeOther)
            #expect(expired.headers[.location]?.hasPrefix("/console/login") == true)
        }
    }

    @Test func aCookieIsSecureOnlyWhenATrustedProxySaysHTTPS() async throws {
        let controller = ConsoleOrigin(trustedProxies: try TrustedProxies(["127.0.0.1/32"]))
        #expect(controller.overHTTPS(Self.request(["X-Forwarded-Proto": "https"]), peer: "127.0.0.1"))
        #expect(controller.overHTTPS(Self.request(["Forwarded": "for=203.0.113.9;proto=https"]), peer: "127.0.0.1"))
        #expect(!controller.overHTTPS(Self.request(["X-Forwarded-Proto": "https"]), peer: "198.51.100.7"), "not a trusted proxy")
        #expect(!controller.overHTTPS(Self.request(["X-Forwarded-Proto": "http"]), peer: "127.0.0.1"))
        #expect(!controller.overHTTPS(Self.request([:]), peer: "127.0.0.1"))
    }

    static func request(_ headers: [String: String]) -> Request {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        return Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/console", headerFields: fields),
            body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func afterSignInOnlyPathsOfTheConsole() {
        #expect(ConsoleSignInController.nextPath("/console/users/1?x=2") == "/console/users/1?x=2")
        for hostile in ["//evil.test", "https://evil.test/console", "/console//evil.test", "/console\\..\\x", "/v1/admin/users/1", nil] {
            #expect(ConsoleSignInController.nextPath(hostile) == "/console")
        }
    }

    // MARK: - Forms

    @Test(arguments: Backend.available)
    func anAdjustmentNeedsTheTokenTheOriginAndTheRole(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "alice", role: .admin)
        try await Self.addOperator(api, "bob", role: .readOnly)
        try await api.test { client in
            let user = try await client.newUser()
            let page = "/console/users/\(user.userID)"
            var alice = Browser(client: client)
            _ = try await alice.signIn(operator: "alice")
            let html = Self.text(try await alice.get(page))
            let csrf = try Self.field("csrf", in: html)
            let key = try Self.field("idempotency_key", in: html)
            let form = ["csrf": csrf, "idempotency_key": key, "currency": "credits", "amount": "+7", "reason": "goodwill"]

            var refusals = [
                try await alice.post(page + "/adjustments", form.filter { $0.key != "csrf" }),
                try await alice.post(page + "/adjustments", form.merging(["csrf": "forged"]) { $1 }),
                try await alice.post(page + "/adjustments", form, origin: nil),
                try await alice.post(page + "/adjustments", form, origin: "http://evil.test"),
                try await alice.post(page + "/adjustments", form, origin: "null"),
            ]
            // Another operator's token is not this session's.
            var bob = Browser(client: client)
            _ = try await bob.signIn(operator: "bob")
            let bobsPage = Self.text(try await bob.get(page))
            #expect(!bobsPage.contains("id=\"adjust\""), "a read-only operator is not shown the form")
            refusals.append(try await bob.post(page + "/adjustments", form.merging(["csrf": try Self.field("csrf", in: bobsPage)]) { $1 }))
            refusals.append(try await bob.post(page + "/adjustments", form))
            for refusal in refusals {
                #expect(refusal.status == .forbidden)
                #expect(Self.alert(Self.text(refusal)) != nil)
            }
            #expect(try await Self.credits(api, user.userID).available == 2)

            // From the page itself: done once, and the same form again changes nothing.
            let done = try await alice.post(page + "/adjustments", form)
            #expect(done.status == .ok)
            #expect(Self.notice(Self.text(done)) == "The balance was adjusted.")
            #expect(Self.text(done).contains("<td class=\"available number\">9</td>"))
            let again = try await alice.post(page + "/adjustments", form)
            #expect(Self.notice(Self.text(again)) == "This adjustment was made before; nothing changed.")
            let me = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(me.balances.first { $0.currency == "credits" }?.available == 9)

            // A Referer of this console counts when a browser sends no Origin.
            var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .referer: "http://localhost/console/users/x"]
            headers[.cookie] = alice.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            let referred = try await client.execute(
                uri: page + "/adjustments", method: .post, headers: headers,
                body: ByteBuffer(string: "csrf=\(csrf)&idempotency_key=other&currency=credits&amount=-3&reason=typo"))
            #expect(referred.status == .ok)
            #expect(try await Self.credits(api, user.userID).available == 6)
        }
        let adjustments = try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.filter { $0.action == "adjust" }
        #expect(adjustments.count == 2)
        let first = try #require(adjustments.last)
        #expect(first.actor == "operator:alice")
        #expect(first.before == #"{"currency":"credits","available":2,"held":0,"debt":0}"#)
        #expect(first.after == #"{"currency":"credits","available":9,"held":0,"debt":0}"#)
        #expect(first.detail == "+7 credits: goodwill")
        try await api.harness.checkInvariants()
    }

    @Test func badInputGetsAMessageAndChangesNothing() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            let user = try await client.newUser()
            let page = "/console/users/\(user.userID)"
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let csrf = try Self.field("csrf", in: Self.text(try await browser.get(page)))
            let base = ["csrf": csrf, "idempotency_key": "k", "currency": "credits", "amount": "5", "reason": "r"]
            let adjustments: [[String: String]] = [
                ["amount": "abc"], ["amount": "0"], ["amount": "1.5"], ["amount": "99999999999999999999"], ["amount": "-9223372036854775808"],
                ["currency": "gold"], ["reason": ""], ["reason": String(repeating: "x", count: 501)], ["idempotency_key": ""],
            ]
            for change in adjustments {
                let response = try await browser.post(page + "/adjustments", base.merging(change) { $1 })
                #expect((400..<500).contains(response.status.code), "\(change)")
                #expect(Self.alert(Self.text(response)) != nil, "\(change)")
            }
            let grants: [[String: String]] = [
                ["until": "2026-02-30"], ["until": "tomorrow"], ["until": "2020-01-01"], ["entitlement": "nothing.here"], ["reason": ""],
            ]
            for change in grants {
                let form = ["csrf": csrf, "idempotency_key": "g", "entitlement": "pro", "until": "2027-01-01", "reason": "r"].merging(change) { $1 }
                let response = try await browser.post(page + "/entitlements", form)
                #expect((400..<500).contains(response.status.code), "\(change)")
                #expect(Self.alert(Self.text(response)) != nil, "\(change)")
            }
            #expect(try await Self.credits(api, user.userID).available == 2)
            #expect(try await api.harness.storage.console.grantedEntitlements(userID: user.userID).isEmpty)

            // Lists: a wrong filter says which; an unknown user or notification is a 404 page.
            for uri in [
                "/console/transactions?kind=gold", "/console/transactions?status=lost", "/console/transactions?from=2026-13-01",
                "/console/transactions?after=nonsense", "/console/transactions?limit=0", "/console/ledger?before=-4", "/console/ledger?to=x",
                "/console/notifications?outcome=maybe", "/console/audit?before=z", "/console?window=5y",
            ] {
                let response = try await browser.get(uri)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(Self.alert(Self.text(response)) != nil, "\(uri)")
            }
            for uri in ["/console/users/nobody", "/console/notifications/none", "/console/users/\(String(repeating: "u", count: 300))"] {
                #expect(try await browser.get(uri).status == .notFound, "\(uri)")
            }
        }
        #expect(
            try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.allSatisfy { ["sign_in", "operator_saved"].contains($0.action) })
    }

    @Test func whatUsersTypeIsEscapedEverywhere() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        let hostile = "<script>alert('x')</script>\"><img src=x>"
        let user = try await api.harness.user(appUserID: hostile)
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let page = "/console/users/\(user.id)"
            let csrf = try Self.field("csrf", in: Self.text(try await browser.get(page)))
            _ = try await browser.post(
                page + "/adjustments", ["csrf": csrf, "idempotency_key": "k", "currency": "credits", "amount": "1", "reason": hostile])
            for uri in [page, "/console/ledger", "/console/audit", "/console/transactions?q=\(Browser.escape(hostile))"] {
                let html = Self.text(try await browser.get(uri))
                #expect(!html.contains("<script>") && !html.contains("<img"), "\(uri)")
            }
            #expect(Self.text(try await browser.get(page)).contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x&gt;"))
            // In an export, a text a spreadsheet would run as a formula is written as text.
            _ = try await browser.post(
                page + "/adjustments", ["csrf": csrf, "idempotency_key": "k2", "currency": "credits", "amount": "1", "reason": "=HYPERLINK(\"x\")"])
            let csv = Self.text(try await browser.get("/console/ledger.csv?csrf=\(csrf)"))
            #expect(csv.contains(",\"'=HYPERLINK(\"\"x\"\")\"\r\n"))
        }
    }

    @Test(arguments: Backend.available)
    func hostileFormsAndAddressesAreRefusedAndTheServerStaysUp(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            let user = try await client.newUser()
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let page = "/console/users/\(user.userID)"
            let csrf = try Self.field("csrf", in: Self.text(try await browser.get(page)))
            let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            func raw(
                _ uri: String, _ body: String, contentType: String = "application/x-www-form-urlencoded", origin: String = "http://localhost"
            )
                async throws -> TestResponse
            {
                try await client.execute(
                    uri: uri, method: .post, headers: [.contentType: contentType, .origin: origin, .cookie: cookie], body: ByteBuffer(string: body))
            }
            // Bodies no browser sends: raw spaces and non-ASCII, a bad escape, a NUL, JSON.
            for body in ["operator=%zz&password=x", "operator=%00&password=x", "password=%C3%28"] {
                #expect(try await raw("/console/login", body).status == .badRequest, "\(body)")
            }
            // Read as they come (a wrong password), not a crash.
            for body in ["operator=a b&password=x", "operator=é&password=x", "a=#&password=x"] {
                #expect(try await raw("/console/login", body).status == .unauthorized, "\(body)")
            }
            let form = "csrf=\(csrf)&idempotency_key=k&currency=credits&amount=5&reason="
            #expect(try await raw(page + "/adjustments", form + "a%00b").status == .badRequest)
            #expect(try await raw(page + "/adjustments", form + "ok", contentType: "application/json").status == .badRequest)
            // Origins that only look like this one.
            for origin in ["http://localhost.evil.test", "http://localhost:8080", "http://user@localhost", "ftp://localhost", "localhost", ""] {
                #expect(try await raw(page + "/adjustments", form + "ok", origin: origin).status == .forbidden, "\(origin)")
            }
            #expect(try await Self.credits(api, user.userID).available == 2)
            // A NUL in a filter or a search matches nothing, on either database.
            #expect(try await browser.get("/console/transactions?user=%00").status == .ok)
            #expect(try await browser.get("/console/ledger?kind=%00").status == .ok)
            #expect(try await browser.get("/console/search?q=a%00").status == .seeOther)
            #expect(try await browser.get("/console/users/a%00b").status == .notFound)
            #expect(try await browser.get("/console/notifications/a%00b").status == .notFound)
            #expect(try await raw("/console/users/a%00b/adjustments", form + "ok").status == .notFound)
            // A space in a GET form arrives as '+'.
            let spaced = Self.text(try await browser.get("/console/transactions?q=no+such+id"))
            #expect(spaced.contains("value=\"no such id\""))
            #expect(try await browser.get("/console").status == .ok, "still up")
        }
    }

    @Test func signInAttemptsAreLimitedPerAddress() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            var browser = Browser(client: client)
            var statuses: [Int] = []
            for _ in 0..<(ConsoleSignInController.signInsPerMinute + 2) {
                statuses.append(Int(try await browser.signIn(operator: "alice", password: "guess guess guess").status.code))
            }
            #expect(statuses.prefix(ConsoleSignInController.signInsPerMinute).allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.suffix(2) == [429, 429])
            let refused = try await browser.signIn(operator: "alice")
            #expect(refused.status == .tooManyRequests, "the right password too, until the minute is over")
            #expect(Self.alert(Self.text(refused)) == "Too many attempts; wait a minute.")
            api.harness.clock.set(Harness.start.addingTimeInterval(61))
            #expect(try await browser.signIn(operator: "alice").status == .seeOther)
        }
    }

    @Test func aSecretKeySessionEndsWhenTheKeyChanges() async throws {
        let api = try await API()
        let storage = api.harness.storage
        try await storage.console.openSession(
            tokenHash: ConsoleSessionCookie.hash("old-key-session"), actor: "secret-key", role: .admin, csrfToken: "c",
            expiresAt: Harness.start.addingTimeInterval(3600), keyHash: ConsoleSessionCookie.hash("the previous key"))
        try await storage.console.openSession(
            tokenHash: ConsoleSessionCookie.hash("current-key-session"), actor: "secret-key", role: .admin, csrfToken: "c",
            expiresAt: Harness.start.addingTimeInterval(3600), keyHash: ConsoleSessionCookie.hash(API.secret))
        try await api.test { client in
            var old = Browser(client: client, cookies: [ConsoleSessionCookie.name: "old-key-session"])
            let refused = try await old.get("/console")
            #expect(refused.status == .seeOther)
            var current = Browser(client: client, cookies: [ConsoleSessionCookie.name: "current-key-session"])
            let admitted = try await current.get("/console")
            #expect(admitted.status == .ok)
        }
    }

    @Test func signingInLeadsBackToThePageAskedFor() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            var browser = Browser(client: client)
            let away = try await browser.get("/console/ledger?kind=spend")
            let login = try #require(away.headers[.location])
            let form = Self.text(try await browser.get(login))
            // The form exactly as rendered: its action carries where to go.
            let action = try #require(form.components(separatedBy: "id=\"sign-in\" method=\"post\" action=\"").dropFirst().first?.prefix { $0 != "\"" })
            let signedIn = try await browser.post(
                String(action).replacingOccurrences(of: "&amp;", with: "&"), ["operator": "alice", "password": Self.password])
            #expect(signedIn.headers[.location] == "/console/ledger?kind=spend")
        }
    }

    @Test func refusalsSpeakThePagesLanguage() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            let user = try await client.newUser()
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let page = "/console/users/\(user.userID)"
            let csrf = try Self.field("csrf", in: Self.text(try await browser.get(page + "?lang=uk")))
            let refused = try await browser.post(
                page + "/adjustments", ["csrf": csrf, "idempotency_key": "k", "currency": "gold", "amount": "5", "reason": "r"])
            #expect(Self.alert(Self.text(refused)) == "У каталозі немає такої валюти.")
            let forged = try await browser.post(page + "/adjustments", ["csrf": "forged"])
            #expect(Self.alert(Self.text(forged))?.hasPrefix("Форму відхилено") == true)
        }
    }

    @Test(arguments: Backend.available)
    func concurrentRevocationsAreAuditedOnce(_ backend: Backend) async throws {
        let api = try await API(backend)
        let storage = api.harness.storage
        let user = try await api.harness.user()
        let grant = try await storage.console.grantEntitlement(
            actor: "alice", userID: user.id, entitlement: "pro", until: Harness.start.addingTimeInterval(86_400), reason: "r", idempotencyKey: "g")
        let outcomes = await concurrently(8) { try await storage.console.revokeEntitlement(actor: "alice", userID: user.id, grantID: grant.id) }
        #expect(failures(outcomes).isEmpty, "\(failures(outcomes))")
        #expect(outcomes.compactMap { try? $0.get() }.filter { !$0.replayed }.count == 1)
        #expect(try await storage.console.auditLog(limit: 50, before: nil).entries.filter { $0.action == "revoke_entitlement" }.count == 1)
    }

    @Test func operatorChangesAreAudited() async throws {
        let api = try await API()
        let storage = api.harness.storage
        try await storage.console.saveOperator(name: "carol", passwordHash: try ConsolePasswords.hash(Self.password), role: .readOnly)
        try await storage.console.saveOperator(name: "carol", passwordHash: try ConsolePasswords.hash(Self.password), role: .admin)
        #expect(try await storage.console.removeOperator(name: "carol"))
        #expect(try await !storage.console.removeOperator(name: "carol"))
        let entries = try await storage.console.auditLog(limit: 10, before: nil).entries.reversed().map {
            "\($0.action) \($0.before ?? "-") \($0.after ?? "-")"
        }
        #expect(
            entries == [
                #"operator_saved - {"role":"read_only"}"#, #"operator_saved {"role":"read_only"} {"role":"admin"}"#,
                #"operator_removed {"role":"admin"} -"#,
            ])
    }

    // MARK: - Entitlements

    @Test(arguments: Backend.available)
    func aGrantedEntitlementReachesTheAppUntilItIsRevoked(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            let user = try await client.newUser()
            let page = "/console/users/\(user.userID)"
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let html = Self.text(try await browser.get(page))
            let form = [
                "csrf": try Self.field("csrf", in: html),
                "idempotency_key": try Self.field("idempotency_key", in: html.components(separatedBy: "id=\"grant\"")[1]),
                "entitlement": "pro", "until": "2026-03-31", "reason": "support case 12",
            ]
            let granted = try await browser.post(page + "/entitlements", form)
            #expect(Self.notice(Self.text(granted)) == "The entitlement was granted.")
            #expect(Self.notice(Self.text(try await browser.post(page + "/entitlements", form))) == "This grant was made before; nothing changed.")
            var account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            let pro = try #require(account.entitlements.first { $0.id == "pro" })
            #expect(pro.active && pro.productID == "granted")
            #expect(pro.expiresAt == ISO8601DateFormatter().date(from: "2026-04-01T00:00:00Z"))

            let grants = try await api.harness.storage.console.grantedEntitlements(userID: user.userID)
            #expect(grants.count == 1)
            let revoked = try await browser.post(page + "/entitlements/\(grants[0].id)/revoke", ["csrf": form["csrf"]!])
            #expect(Self.notice(Self.text(revoked)) == "The entitlement was revoked.")
            account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(!account.entitlements.contains { $0.id == "pro" })

            // Past its date it stays listed but no longer in force.
            let later = try await api.harness.storage.console.grantEntitlement(
                actor: "test", userID: user.userID, entitlement: "pro", until: Harness.start.addingTimeInterval(3600), reason: "an hour",
                idempotencyKey: "hour")
            #expect(later.replayed == false)
            api.harness.clock.set(Harness.start.addingTimeInterval(7200))
            account = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(account.entitlements.first { $0.id == "pro" }?.active == false)
        }
        let actions = try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.map(\.action)
        #expect(actions.filter { $0 == "grant_entitlement" }.count == 2 && actions.filter { $0 == "revoke_entitlement" }.count == 1)
    }

    // MARK: - Lists

    @Test(arguments: Backend.available)
    func listsPageToTheEndSearchAndExport(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "bob", role: .readOnly)
        let harness = api.harness
        var bought: [String: String] = [:]  // transaction id → user id
        let users = [try await harness.user(), try await harness.user()]
        for index in 0..<23 {
            let user = users[index % 2]
            let product = index % 3 == 0 ? "com.tally.photo.credits.10" : "com.tally.photo.credits.50"
            let (verified, jws) = try await harness.buy(product, for: user)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
            bought[verified.payload.transactionID!] = user.id
            if index % 5 == 0 { try await harness.advance(by: .seconds(1)) }
        }
        let purchases = bought
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "bob")
            var seen: [String] = []
            var uri: String? = "/console/transactions?limit=5"
            while let next = uri {
                let html = Self.text(try await browser.get(next))
                seen += Self.cells("transaction-id", in: html)
                uri = Self.link("next", in: html)
            }
            #expect(seen.count == 23 && Set(seen) == Set(purchases.keys), "keyset pages lose and repeat nothing")

            let tens = Self.text(try await browser.get("/console/transactions?product=com.tally.photo.credits.10&limit=200"))
            #expect(Self.cells("product", in: tens).count == 8 && Self.cells("product", in: tens).allSatisfy { $0 == "com.tally.photo.credits.10" })

            // Any id finds it: a transaction, a user, an app account token (in any case).
            let one = try #require(purchases.keys.sorted().first)
            #expect(Self.cells("transaction-id", in: Self.text(try await browser.get("/console/transactions?q=\(one)"))) == [one])
            let token = users[0].appAccountToken.uuidString.uppercased()
            #expect(Self.cells("transaction-id", in: Self.text(try await browser.get("/console/transactions?q=\(token)&limit=200"))).count == 12)
            #expect(try await browser.get("/console/search?q=\(token)").headers[.location] == "/console/users/\(users[0].id)")
            #expect(try await browser.get("/console/search?q=\(one)").headers[.location] == "/console/transactions?q=\(one)")

            // The export is the whole filtered list, not one page.
            let csrf = try Self.field("csrf", in: tens)
            let csv = Self.text(try await browser.get("/console/transactions.csv?user=\(users[1].id)&limit=2&csrf=\(csrf)"))
            let lines = csv.split(separator: "\r\n")
            #expect(lines.first?.hasPrefix("transaction_id,original_transaction_id,user_id,product_id") == true)
            #expect(lines.count == 1 + 11)
            #expect(Set(lines.dropFirst().map { String($0.split(separator: ",")[0]) }) == Set(purchases.filter { $0.value == users[1].id }.keys))

            // The ledger: 23 purchases and 2 sign-ups, in pages.
            var entries: [String] = []
            uri = "/console/ledger?limit=4"
            while let next = uri {
                let html = Self.text(try await browser.get(next))
                entries += Self.cells("entry-id", in: html)
                uri = Self.link("next", in: html)
            }
            #expect(entries.count == 25 && Set(entries).count == 25)
            // One user's purchases: 12, newest first by id, in pages of 5.
            var mine: [Int64] = []
            uri = "/console/ledger?user=\(users[0].id)&kind=purchase&limit=5"
            while let next = uri {
                let html = Self.text(try await browser.get(next))
                mine += Self.cells("entry-id", in: html).compactMap { Int64($0) }
                uri = Self.link("next", in: html)
            }
            #expect(mine.count == 12 && Set(mine).count == 12 && mine == mine.sorted(by: >), "\(mine)")
            #expect(Self.text(try await browser.get("/console/ledger.csv?kind=signup&csrf=\(csrf)")).split(separator: "\r\n").count == 3)
        }
        let exports = try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.filter { $0.action == "export" }
        #expect(exports.map { $0.target ?? "" }.sorted() == ["ledger", "transactions"])
    }

    static func cells(_ name: String, in html: String) -> [String] {
        html.components(separatedBy: "class=\"\(name)").dropFirst().map { part in
            String(part.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" })
        }
    }

    static func link(_ id: String, in html: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\" rel=\"next\" href=\"")?.upperBound else { return nil }
        return String(html[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test(arguments: Backend.available)
    func theOverviewCountsPurchasesRevenueRefundsAndFailures(_ backend: Backend) async throws {
        let api = try await API(backend)
        let harness = api.harness
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            let user = try await client.newUser()
            var refundable = ""
            for index in 0..<3 {
                let account = try #require(try await harness.storage.users.user(id: user.userID))
                let (_, jws) = try await harness.buy("com.tally.photo.credits.50", for: account)
                let response = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: jws)))
                #expect(response.status == .ok)
                if index == 0 { refundable = try await harness.verified(jws).payload.transactionID! }
            }
            try await harness.store.refund(transactionID: refundable)
            let refund = try #require(
                try await harness.notifications().first { $0.0.payload.notificationType == .refund && $0.0.transaction?.payload.transactionID == refundable })
            #expect(
                try await client.post("/v1/notifications/appstore", token: nil, body: ByteBuffer(string: "{\"signedPayload\":\"\(refund.1)\"}")).status == .ok)
            let bad = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: "a.b.c")))
            #expect(bad.status == .unprocessableContent)

            let window = (from: Harness.start.addingTimeInterval(-86_400), to: Harness.start.addingTimeInterval(86_400))
            let overview = try await harness.storage.console.overview(from: window.from, to: window.to, environment: nil)
            let elsewhere = try await harness.storage.console.overview(from: window.from, to: window.to, environment: "Xcode")
            #expect(elsewhere.purchases == 0 && elsewhere.refunds == 0 && elsewhere.revenue.isEmpty, "the store's figures of one environment")
            #expect(overview.purchases == 3 && overview.refunds == 1)
            let revenue = try #require(overview.revenue.first)
            #expect(overview.revenue.count == 1 && revenue.count == 3 && revenue.currency != nil && revenue.milliunits > 0)
            #expect(overview.refunded.first?.milliunits == revenue.milliunits / 3)
            #expect(overview.movements.contains { $0.kind == "purchase" && $0.amount == 150 })
            #expect(overview.movements.contains { $0.kind == "refund" && $0.amount == -50 })
            #expect(overview.verificationFailures.map(\.count).reduce(0, +) == 1)
            #expect(overview.verificationFailures.first?.currency == "purchase")
            #expect(overview.days.count == 2 && overview.days.map(\.purchases).reduce(0, +) == 3)

            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let html = Self.text(try await browser.get("/console?window=7d"))
            #expect(html.contains("<span id=\"purchase-count\" class=\"number\">3</span>"))
            #expect(html.contains("<span id=\"refund-count\" class=\"number\">1</span>"))
            #expect(html.contains("<svg id=\"chart\"") && html.contains("class=\"purchase\""))
            let timeline = Self.text(try await browser.get("/console/users/\(user.userID)"))
            #expect(timeline.contains("<li class=\"event refund\">") && timeline.contains("<li class=\"event notification\">"))
            let notifications = Self.text(try await browser.get("/console/notifications"))
            let detail = try #require(notifications.components(separatedBy: "href=\"/console/notifications/").dropFirst().first?.prefix { $0 != "\"" })
            let payload = Self.text(try await browser.get("/console/notifications/\(detail)"))
            #expect(payload.contains("signedTransactionInfo") && payload.contains(refundable))
            let csrf = try Self.field("csrf", in: notifications)
            let csv = Self.text(try await browser.get("/console/notifications.csv?outcome=applied&csrf=\(csrf)")).split(separator: "\r\n")
            #expect(csv.count == 2 && csv[1].contains("REFUND") && csv[1].contains(refundable))
        }
    }

    // MARK: - Languages

    @Test func theConsoleSpeaksEnglishAndUkrainian() async throws {
        let api = try await API()
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let english = Self.text(try await browser.get("/console/products"))
            #expect(english.contains("<html lang=\"en\">") && english.contains(">Transactions</a>"))
            let ukrainian = try await browser.get("/console/products?lang=uk")
            #expect(Self.text(ukrainian).contains("<html lang=\"uk\">") && Self.text(ukrainian).contains(">Транзакції</a>"))
            #expect(Self.text(ukrainian).contains("Аналіз особистості"), "the catalog's Ukrainian paywall texts")
            #expect(Self.text(try await browser.get("/console/ledger")).contains("<html lang=\"uk\">"), "the choice is kept")
            #expect(Self.text(try await browser.get("/console/ledger?lang=en")).contains("<html lang=\"en\">"))
            var fresh = Browser(client: client)
            #expect(Self.text(try await fresh.get("/console/login", headers: [.acceptLanguage: "uk-UA,uk;q=0.9"])).contains("<html lang=\"uk\">"))
        }
    }

    @Test func everyTextExistsInBothLanguagesAndEveryTemplateRenders() throws {
        for (key, texts) in ConsoleText.all {
            #expect(!texts.0.isEmpty && !texts.1.isEmpty, "\(key)")
        }
        let used = ConsoleTemplates.all.flatMap { _, text in
            text.components(separatedBy: "{{t.").dropFirst().map { String($0.prefix { $0 != "}" }) }
        }
        #expect(!used.isEmpty)
        for key in Set(used) { #expect(ConsoleText.all[key] != nil, "t.\(key) has no text") }
        // No template writes a value unescaped.
        for (name, text) in ConsoleTemplates.all { #expect(!text.contains("{{{") && !text.contains("{{&"), "\(name)") }
        _ = try ConsoleTemplates.library()
    }

    // MARK: - Parts

    @Test func aFloodOfRefusalsIsWrittenInFewWrites() async throws {
        let harness = try await Harness(.sqlite)
        // The counter's clock and its delayed work, in the test's hands.
        final class Control: @unchecked Sendable {
            let lock = NSLock()
            let start = ContinuousClock.now
            var offset = Duration.zero
            var pending: [(Duration, @Sendable () async -> Void)] = []
        }
        let control = Control()
        let counter = VerificationFailureCounter(
            storage: harness.storage.console, interval: .seconds(5), now: { control.lock.withLock { control.start + control.offset } },
            later: { delay, work in control.lock.withLock { control.pending.append((delay, work)) } })
        let window = (from: Harness.start.addingTimeInterval(-120), to: Harness.start.addingTimeInterval(120))
        func counted() async throws -> Int64 {
            try await harness.storage.console.verificationFailures(from: window.from, to: window.to).reduce(0) { $0 + $1.count }
        }
        await counter.count(source: "notification", code: "bad_signature")
        #expect(try await counted() == 1, "the first after a quiet spell is written at once")
        control.lock.withLock { control.offset = .seconds(1) }
        for _ in 0..<200 { await counter.count(source: "notification", code: "bad_signature") }
        #expect(try await counted() == 1, "the rest wait for the end of the interval")
        let scheduled = control.lock.withLock { control.pending }
        #expect(scheduled.count == 1 && scheduled.first?.0 == .seconds(4), "one write, when the 5 s since the last are up")
        control.lock.withLock { control.offset = .seconds(5) }
        await scheduled[0].1()
        #expect(try await counted() == 201, "written together")
        // After a quiet spell, the next is written at once again.
        control.lock.withLock { control.offset = .seconds(60) }
        await counter.count(source: "purchase", code: "bad_signature")
        #expect(try await counted() == 202)
    }

    @Test func passwordsAreScryptHashes() throws {
        let hash = try ConsolePasswords.hash("correct horse battery")
        #expect(hash.hasPrefix("scrypt$15$8$1$"))
        #expect(try ConsolePasswords.hash("correct horse battery") != hash, "salted")
        #expect(ConsolePasswords.verify("correct horse battery", hash: hash))
        #expect(!ConsolePasswords.verify("correct horse batterY", hash: hash))
        for broken in ["", "scrypt$15$8$1$AAAA", "sha256$abc", hash.replacingOccurrences(of: "scrypt$15", with: "scrypt$40")] {
            #expect(!ConsolePasswords.verify("correct horse battery", hash: broken))
        }
    }

    @Test func csvFieldsAreQuotedAndFormulasDefused() {
        #expect(ConsoleFormat.csvLine(["a", nil, "b,c", "say \"hi\"", "-5", "-x", "=1+1", "@me"]) == "a,,\"b,c\",\"say \"\"hi\"\"\",-5,'-x,'=1+1,'@me\r\n")
        #expect(ConsoleFormat.milliunits(4990) == "4.99" && ConsoleFormat.milliunits(500_000) == "500.00" && ConsoleFormat.milliunits(1234) == "1.234")
        #expect(ConsoleFormat.parseDay("2026-02-29") == nil && ConsoleFormat.parseDay("2028-02-29") != nil)
    }
}

extension ConsoleTests.Browser {
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!
    }
}
