import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyTesting
import Testing

@testable import TallyServer

/// Searching and filtering with any character, choosing among users a search names, amounts,
/// IPv6 addresses, the timeline's language, the lists' layout and the exports' token.
extension ConsoleTests {
    // MARK: - Search

    @Test(arguments: Backend.available)
    func aPlusTypedInTheSearchOrAFilterStaysAPlus(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "bob", role: .readOnly)
        let plus = try await api.harness.user(appUserID: "jo+test@example.com")
        let space = try await api.harness.user(appUserID: "jo test@example.com")
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "bob")
            // A GET form writes `+` as %2B and a space as `+`.
            #expect(try await browser.get("/console/search?q=jo%2Btest%40example.com").headers[.location] == "/console/users/\(plus.id)")
            #expect(try await browser.get("/console/search?q=jo+test%40example.com").headers[.location] == "/console/users/\(space.id)")
            // Nothing found: the transactions' search keeps the `+`.
            let none = try await browser.get("/console/search?q=a%2Bb")
            #expect(none.headers[.location] == "/console/transactions?q=a%2Bb")
            let list = Self.text(try await browser.get("/console/transactions?q=a%2Bb&user=x%2By"))
            #expect(list.contains("name=\"q\" value=\"a+b\"") && list.contains("name=\"user\" value=\"x+y\""), "the form shows what was typed")
        }
    }

    @Test(arguments: Backend.available)
    func aSearchNamingSeveralUsersOffersAChoiceBestMatchFirst(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "bob", role: .readOnly)
        let owner = try await api.harness.user()
        let token = owner.appAccountToken.uuidString.lowercased()
        // Apps choose their user ids: one is another user's app account token, one another user's id.
        let namedLikeAToken = try await api.harness.user(appUserID: token)
        let namedLikeAnID = try await api.harness.user(appUserID: owner.id)
        let alone = try await api.harness.user(appUserID: "alone")
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "bob")
            for (text, expected) in [
                (token, [(owner.id, "App account token"), (namedLikeAToken.id, "App&#39;s user id")]),
                (owner.id, [(owner.id, "User id"), (namedLikeAnID.id, "App&#39;s user id")]),
            ] {
                let page = try await browser.get("/console/search?q=\(text)")
                #expect(page.status == .ok && page.headers[.location] == nil, "a choice, not one of them")
                let html = Self.text(page)
                let users = html.components(separatedBy: "<a class=\"user-link\" href=\"/console/users/").dropFirst().map { String($0.prefix { $0 != "\"" }) }
                let fields = Self.cells("field", in: html)
                #expect(users == expected.map(\.0) && fields == expected.map(\.1), "\(text)")
            }
            #expect(try await browser.get("/console/search?q=alone").headers[.location] == "/console/users/\(alone.id)")
            let ukrainian = Self.text(try await browser.get("/console/search?q=\(token)&lang=uk"))
            #expect(ukrainian.contains("Знайдено кількох користувачів") && ukrainian.contains("Токен облікового запису"))
        }
    }

    // MARK: - Amounts

    @Test(arguments: Backend.available)
    func anAmountIsAnOptionalSignAndDigitsOnly(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            let user = try await client.newUser()
            let page = "/console/users/\(user.userID)"
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            let csrf = try Self.field("csrf", in: Self.text(try await browser.get(page)))
            for (index, amount) in ["+-5", "-+5", "--5", "++5", "5-", "+", "-", "0x5", "1e3", "5.0", "+ 5", "٥", "-0", "99999999999999999999"]
                .enumerated()
            {
                let form = ["csrf": csrf, "idempotency_key": "bad-\(index)", "currency": "credits", "amount": amount, "reason": "r"]
                let refused = try await browser.post(page + "/adjustments", form)
                #expect(refused.status == .badRequest, "\(amount)")
                #expect(Self.alert(Self.text(refused)) == "The amount must be a whole number other than 0, such as 10 or -5.", "\(amount)")
            }
            #expect(try await Self.credits(api, user.userID).available == 2)
            for (index, amount) in ["+5", "-3", "4"].enumerated() {
                let form = ["csrf": csrf, "idempotency_key": "good-\(index)", "currency": "credits", "amount": amount, "reason": "r"]
                #expect(try await browser.post(page + "/adjustments", form).status == .ok, "\(amount)")
            }
            #expect(try await Self.credits(api, user.userID).available == 8)
        }
        let adjustments = try await api.harness.storage.console.auditLog(limit: 50, before: nil).entries.filter { $0.action == "adjust" }
        #expect(adjustments.map(\.detail) == ["+4 credits: r", "-3 credits: r", "+5 credits: r"])
    }

    // MARK: - IPv6

    static func request(authority: String, _ headers: [String: String]) -> Request {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        return Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: authority, path: "/console/login", headerFields: fields),
            body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func formsComeFromTheConsoleServedOnAnIPv6Address() async throws {
        let controller = ConsoleOrigin(trustedProxies: try TrustedProxies([]))
        // `tally serve --host ::1 --port 8080`: the browser sends Host [::1]:8080 and Origin http://[::1]:8080.
        #expect(controller.sameOrigin(Self.request(authority: "[::1]:8080", ["Origin": "http://[::1]:8080"])))
        #expect(controller.sameOrigin(Self.request(authority: "[::1]:8080", ["Referer": "http://[::1]:8080/console/login"])))
        #expect(controller.sameOrigin(Self.request(authority: "[2001:db8::1]", ["Origin": "http://[2001:DB8::1]"])))
        #expect(controller.sameOrigin(Self.request(authority: "127.0.0.1:8080", ["Origin": "http://127.0.0.1:8080"])))
        // Another address, another port, or a host written without brackets is another origin.
        #expect(!controller.sameOrigin(Self.request(authority: "[::1]:8080", ["Origin": "http://[::2]:8080"])))
        #expect(!controller.sameOrigin(Self.request(authority: "[::1]:8080", ["Origin": "http://[::1]:8081"])))
        #expect(!controller.sameOrigin(Self.request(authority: "::1:8080", ["Origin": "http://[::1]:8080"])))
        #expect(!controller.sameOrigin(Self.request(authority: "[::1]:8080", ["Origin": "http://localhost:8080"])))
    }

    // MARK: - The timeline's language

    @Test(arguments: Backend.available)
    func theTimelineSpeaksThePagesLanguage(_ backend: Backend) async throws {
        let api = try await API(backend)
        let harness = api.harness
        try await Self.addOperator(api, "alice", role: .admin)
        try await api.test { client in
            let user = try await client.newUser()
            let account = try #require(try await harness.storage.users.user(id: user.userID))
            let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: account)
            #expect(try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: jws))).status == .ok)
            let bought = try #require(verified.payload.transactionID)
            try await harness.store.refund(transactionID: bought)
            let refund = try #require(
                try await harness.notifications().first { $0.0.payload.notificationType == .refund && $0.0.transaction?.payload.transactionID == bought })
            #expect(
                try await client.post("/v1/notifications/appstore", token: nil, body: ByteBuffer(string: "{\"signedPayload\":\"\(refund.1)\"}")).status == .ok)
            _ = try await harness.storage.console.grantEntitlement(
                actor: "test", userID: user.userID, entitlement: "pro", until: Harness.start.addingTimeInterval(86_400), reason: "support",
                idempotencyKey: "g")

            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "alice")
            func timeline(_ language: String) async throws -> String {
                let html = Self.text(try await browser.get("/console/users/\(user.userID)?lang=\(language)"))
                let timeline = html.components(separatedBy: "<ol id=\"timeline\">").dropFirst().first?.components(separatedBy: "</ol>").first
                return try #require(timeline)
            }
            let english = try await timeline("en")
            for words in ["Sandbox · received ", "refunded for another reason", "pro until "] { #expect(english.contains(words), "\(words)") }
            let ukrainian = try await timeline("uk")
            for words in ["тестове середовище (Sandbox) · отримано ", "повернено з іншої причини", "pro до "] { #expect(ukrainian.contains(words), "\(words)") }
            for english in ["received", "reason", "until"] { #expect(!ukrainian.contains(english), "\(english) in the Ukrainian timeline") }
        }
    }

    // MARK: - Layout

    @Test func listsKeepIdsWholeInFewColumns() throws {
        // At 1,280 px a list fits when no id breaks (a user id broken into 33-pixel lines made
        // rows 200 px tall) and the transactions list has few enough columns to hold them.
        let columns =
            ConsoleTemplates.transactions.components(separatedBy: "<table id=\"rows\"")[1]
            .components(separatedBy: "</thead>")[0].components(separatedBy: "<th>").count - 1
        #expect(columns <= 6)
        for (name, template) in ConsoleTemplates.all {
            let links = template.components(separatedBy: "<a class=\"user-link\"").count - 1
            let kept =
                template.components(separatedBy: "<td class=\"id\"><a class=\"user-link\"").count - 1
                + template.components(separatedBy: "<td class=\"id\">{{#userID}}<a class=\"user-link\"").count - 1
            #expect(links == kept, "\(name): a user link outside a cell that keeps it whole")
        }
        let style = ConsoleTemplates.stylesheet
        #expect(style.contains("td.id, td.id a, td.product { white-space: nowrap; }"))
        #expect(!style.contains("a.user-link, td code, td.detail-cell { overflow-wrap: anywhere; }"))
    }

    // MARK: - Exports

    @Test(arguments: Backend.available)
    func anExportNeedsTheSessionsToken(_ backend: Backend) async throws {
        let api = try await API(backend)
        try await Self.addOperator(api, "bob", role: .readOnly)
        try await api.test { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(operator: "bob")
            var links: [String] = []
            for list in ["transactions", "ledger", "notifications", "audit"] {
                let html = Self.text(try await browser.get("/console/\(list)"))
                let start = try #require(html.range(of: "id=\"export\" href=\"")?.upperBound)
                let href = String(html[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
                #expect(href.hasPrefix("/console/\(list).csv?") && href.contains("csrf="), "\(href)")
                links.append(href)
                // What an <img> elsewhere on the site would load: no token, or another one.
                for forged in ["/console/\(list).csv", "/console/\(list).csv?csrf=forged"] {
                    let refused = try await browser.get(forged)
                    #expect(refused.status == .forbidden, "\(forged)")
                    #expect(Self.alert(Self.text(refused))?.hasPrefix("The export was refused") == true, "\(forged)")
                }
            }
            let audited = try await api.harness.storage.console.auditLog(limit: 200, before: nil).entries.filter { $0.action == "export" }
            #expect(audited.isEmpty, "a refused export writes nothing")
            for href in links {
                let answer = try await browser.get(href)
                #expect(answer.status == .ok && answer.headers[.contentType] == "text/csv; charset=utf-8", "\(href)")
            }
        }
        let exports = try await api.harness.storage.console.auditLog(limit: 200, before: nil).entries.filter { $0.action == "export" }
        #expect(exports.map { $0.target ?? "" }.sorted() == ["audit", "ledger", "notifications", "transactions"])
        #expect(!exports.contains { ($0.detail ?? "").contains("csrf") }, "the token is not written to the log")
    }
}
