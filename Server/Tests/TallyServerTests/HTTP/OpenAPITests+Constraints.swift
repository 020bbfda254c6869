import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyTestSupport
import Testing

@testable import TallyServer

/// The constraints the document states on requests are the server's: for every constrained
/// field, parameter and body member, values just inside the stated bounds are taken (not 400)
/// and values just outside are refused with 400 and a stable code. The bounds are read from the
/// document the server serves, so a constraint stated without a case here fails, and so does a
/// check in code that refuses what the document allows.
extension OpenAPITests {
    /// A value to send: JSON in a body, text in a path or query.
    enum Sample: Sendable, CustomStringConvertible {
        case integer(String)
        case string(String)
        case array([Sample])

        var json: String {
            switch self {
            case .integer(let text): text
            case .string(let text): String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
            case .array(let items): "[" + items.map(\.json).joined(separator: ",") + "]"
            }
        }

        /// As a path segment or query value: percent-encoded.
        var uriText: String {
            switch self {
            case .integer(let text): text
            case .string(let text):
                text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
            case .array: json
            }
        }

        var description: String {
            let text = json
            return text.count > 60 ? String(text.prefix(40)) + "…(\(text.count) characters)" : text
        }
    }

    /// Where a constrained input is: `"<operationId> <path|query|body> <name>"`.
    typealias FieldKey = String

    /// What the test knows of each operation: how to call it with one input changed.
    struct OperationCall: Sendable {
        enum Auth: Sendable { case none, user, secretKey }
        let method: HTTPRequest.Method
        /// The path with `{name}` for each path parameter.
        let path: String
        let auth: Auth
        /// The values of the path parameters when they are not the input under test.
        var pathValues: [String: String] = [:]
        /// The body's members when they are not the input under test; nil: no body.
        var body: [String: Sample]?
        /// Whether signed data that does not verify, or Apple not configured, is 422 here.
        var verifies = false
    }

    /// The code a refusal of each constrained input carries, where it is not `invalid_request`.
    static let refusalCodes: [FieldKey: String] = [
        "createOrder body product_id": "unknown_product",
        "ledger query currency": "unknown_currency",
        "spend body currency": "unknown_currency", "spend body amount": "invalid_amount",
        "spend body idempotency_key": "invalid_idempotency_key",
        "reserve body currency": "unknown_currency", "reserve body amount": "invalid_amount",
        "reserve body idempotency_key": "invalid_idempotency_key",
        "commitReservation body used": "invalid_amount",
        "adjust body currency": "unknown_currency", "adjust body amount": "invalid_amount",
        "adjust body idempotency_key": "invalid_idempotency_key",
    ]

    /// Values of a pattern the document states, taken and refused: each must match (or not) the
    /// document's pattern, so these cannot drift from it.
    static let patternSamples: [String: (inside: [String], outside: [String])] = [
        "Identifier": (["a", "evt_0a", "ü-ä", String(repeating: "x", count: 128)], ["a\u{0}b", "a\u{1F}", "tab\tbed", "a\u{7F}", "a\u{85}b"]),
        "app_user_id": (["a", "user-1", String(repeating: "y", count: 128)], ["a\u{0}", "line\nbreak"]),
        "transaction_id": (["1", "0", String(repeating: "9", count: 20)], ["", "12a", String(repeating: "1", count: 21), "-1", "1 "]),
        "WebhookURL": (
            [
                "http://example.com", "https://EXAMPLE.com:8443/hooks?x=1&y=%20#top", "HTTP://127.0.0.1:65535/a/b;c=d",
                "https://h/" + String(repeating: "p", count: 2048 - 10),
            ],
            [
                "ftp://example.com/", "https://user:pw@example.com/", "http://", "http://exa mple.com/", "http://example.com/%zz",
                "http://[::1]/", "https://h/" + String(repeating: "p", count: 2048 - 9), "example.com/hook", "http://h/a\u{0}",
            ]
        ),
        "WebhookDescription": (["", "two\nlines", String(repeating: "d", count: 500)], ["tab\there", "nul\u{0}", String(repeating: "d", count: 501)]),
        "WebhookSecretText": (
            [
                "whsec_" + Data(repeating: 7, count: 24).base64EncodedString(), "whsec_" + Data(repeating: 9, count: 64).base64EncodedString(),
                "whsec_" + Data(repeating: 1, count: 25).base64EncodedString(),
                "whsec_" + String(Data(repeating: 1, count: 26).base64EncodedString().dropLast()),
            ],
            [
                "whsec_" + Data(repeating: 7, count: 23).base64EncodedString(), "whsec_" + Data(repeating: 7, count: 65).base64EncodedString(),
                Data(repeating: 7, count: 32).base64EncodedString(), "whsec_" + String(repeating: "B", count: 31) + "B==",
                "whsec_" + Data(repeating: 7, count: 32).base64EncodedString() + "\n",
            ]
        ),
        "AdminCursor": (
            ["0_a", "1772323200000_2000000001", "123456789012345678_" + String(repeating: "i", count: 128)],
            ["_a", "1_", "1234567890123456789_a", "-1_a", "1_a\u{0}", "x_a"]
        ),
    ]

    /// The operations whose inputs the document constrains, each called as a client would.
    static func operationCalls(user: CreateUserResponse, endpoint: String) -> [String: OperationCall] {
        let key = Sample.string("key")
        return [
            "createUser": OperationCall(method: .post, path: "/v1/users", auth: .secretKey, body: [:]),
            "createOrder": OperationCall(method: .post, path: "/v1/me/orders", auth: .user, body: ["product_id": .string("com.tally.photo.credits.10")]),
            "order": OperationCall(method: .get, path: "/v1/me/orders/{id}", auth: .user, pathValues: ["id": "no-such-order"]),
            "failOrder": OperationCall(
                method: .post, path: "/v1/me/orders/{id}/fail", auth: .user, pathValues: ["id": "no-such-order"], body: ["reason": .string("r")]),
            // A bare transaction id: the tests' server has no App Store Server API key (422), once the body's form is right.
            "purchase": OperationCall(method: .post, path: "/v1/me/purchases", auth: .user, body: ["transaction_id": .string("2000000001")], verifies: true),
            "restore": OperationCall(method: .post, path: "/v1/me/restore", auth: .user, body: [:], verifies: true),
            "ledger": OperationCall(method: .get, path: "/v1/me/ledger", auth: .user),
            "spend": OperationCall(
                method: .post, path: "/v1/me/spend", auth: .user,
                body: ["currency": .string("credits"), "amount": .integer("1"), "idempotency_key": key]),
            "reserve": OperationCall(
                method: .post, path: "/v1/me/reservations", auth: .user,
                body: ["currency": .string("credits"), "amount": .integer("1"), "ttl_seconds": .integer("60"), "idempotency_key": key]),
            "commitReservation": OperationCall(
                method: .post, path: "/v1/me/reservations/{id}/commit", auth: .user, pathValues: ["id": "no-such-hold"], body: ["used": .integer("0")]),
            "releaseReservation": OperationCall(method: .delete, path: "/v1/me/reservations/{id}", auth: .user, pathValues: ["id": "no-such-hold"]),
            "adminUser": OperationCall(method: .get, path: "/v1/admin/users/{id}", auth: .secretKey, pathValues: ["id": user.userID]),
            "adjust": OperationCall(
                method: .post, path: "/v1/admin/users/{id}/adjustments", auth: .secretKey, pathValues: ["id": user.userID],
                body: ["currency": .string("credits"), "amount": .integer("1"), "reason": .string("test"), "idempotency_key": key]),
            "adminTransactions": OperationCall(method: .get, path: "/v1/admin/transactions", auth: .secretKey),
            "adminNotifications": OperationCall(method: .get, path: "/v1/admin/notifications", auth: .secretKey),
            "adminMetrics": OperationCall(method: .get, path: "/v1/admin/metrics", auth: .secretKey),
            "createWebhookEndpoint": OperationCall(
                method: .post, path: "/v1/admin/webhooks", auth: .secretKey, body: ["url": .string("https://example.com/hook")]),
            "webhookEndpoint": OperationCall(method: .get, path: "/v1/admin/webhooks/{id}", auth: .secretKey, pathValues: ["id": endpoint]),
            "updateWebhookEndpoint": OperationCall(method: .patch, path: "/v1/admin/webhooks/{id}", auth: .secretKey, pathValues: ["id": endpoint], body: [:]),
            "deleteWebhookEndpoint": OperationCall(method: .delete, path: "/v1/admin/webhooks/{id}", auth: .secretKey, pathValues: ["id": "we_none"]),
            "rotateWebhookSecret": OperationCall(
                method: .post, path: "/v1/admin/webhooks/{id}/rotate-secret", auth: .secretKey, pathValues: ["id": endpoint], body: [:]),
            "webhookDeliveries": OperationCall(method: .get, path: "/v1/admin/webhooks/{id}/deliveries", auth: .secretKey, pathValues: ["id": endpoint]),
            "webhookAttempts": OperationCall(
                method: .get, path: "/v1/admin/webhooks/{id}/deliveries/{event}/attempts", auth: .secretKey, pathValues: ["id": endpoint, "event": "evt_none"]),
            "replayWebhook": OperationCall(
                method: .post, path: "/v1/admin/webhooks/{id}/deliveries/{event}/replay", auth: .secretKey, pathValues: ["id": endpoint, "event": "evt_none"]),
            "events": OperationCall(method: .get, path: "/v1/admin/events", auth: .secretKey),
            "forgetEventReader": OperationCall(method: .delete, path: "/v1/admin/events/readers/{name}", auth: .secretKey, pathValues: ["name": "event_log"]),
        ]
    }

    /// A constrained input of the document: its key, its resolved schema, and the name its
    /// pattern samples go by.
    struct Constrained {
        let operationID: String
        let location: String
        let name: String
        let schema: [String: Any]
        let sampleName: String?
        var key: FieldKey { "\(operationID) \(location) \(name)" }
    }

    static let constraintKeywords: Set<String> = ["minimum", "maximum", "minLength", "maxLength", "pattern", "enum", "not", "maxItems", "const"]

    /// Every input of every operation that the document constrains.
    static func constrainedInputs(_ document: [String: Any]) throws -> [Constrained] {
        func resolve(_ node: Any?) -> (schema: [String: Any], name: String?) {
            guard var schema = node as? [String: Any] else { return ([:], nil) }
            var name: String?
            while let ref = schema["$ref"] as? String {
                let parts = ref.dropFirst(2).split(separator: "/").map(String.init)
                name = parts.last
                var target: Any? = document
                for part in parts { target = (target as? [String: Any])?[part] }
                var merged = target as? [String: Any] ?? [:]
                for (key, value) in schema where key != "$ref" { merged[key] = value }
                schema = merged
            }
            return (schema, name)
        }
        func isConstrained(_ schema: [String: Any]) -> Bool {
            if !constraintKeywords.isDisjoint(with: schema.keys) { return true }
            if let items = schema["items"] { return isConstrained(resolve(items).schema) }
            return false
        }
        var found: [Constrained] = []
        let paths = try #require(document["paths"] as? [String: Any])
        for (_, item) in paths {
            for (method, operation) in try #require(item as? [String: Any]) where ["get", "post", "patch", "delete", "put"].contains(method) {
                let operation = try #require(operation as? [String: Any])
                let operationID = try #require(operation["operationId"] as? String)
                for parameter in operation["parameters"] as? [Any] ?? [] {
                    let (resolvedParameter, parameterName) = resolve(parameter)
                    let (schema, schemaName) = resolve(resolvedParameter["schema"])
                    guard isConstrained(schema), let name = resolvedParameter["name"] as? String, let location = resolvedParameter["in"] as? String else {
                        continue
                    }
                    found.append(Constrained(operationID: operationID, location: location, name: name, schema: schema, sampleName: schemaName ?? parameterName))
                }
                let body = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
                let (bodySchema, _) = resolve(body?["schema"])
                let alternatives = (bodySchema["oneOf"] as? [Any])?.map { resolve($0).schema } ?? [bodySchema]
                var seen = Set<String>()
                for alternative in alternatives {
                    for (name, property) in alternative["properties"] as? [String: Any] ?? [:] where seen.insert(name).inserted {
                        let (schema, schemaName) = resolve(property)
                        guard isConstrained(schema) else { continue }
                        found.append(Constrained(operationID: operationID, location: "body", name: name, schema: schema, sampleName: schemaName ?? name))
                    }
                }
            }
        }
        return found.sorted { $0.key < $1.key }
    }

    /// Values just inside and just outside what `input`'s schema allows.
    static func boundaries(_ input: Constrained) throws -> (inside: [Sample], outside: [Sample]) {
        let schema = input.schema
        var inside: [Sample] = []
        var outside: [Sample] = []
        if let values = schema["enum"] as? [Any] {
            inside += values.map { Sample.string("\($0)") }
            outside.append(.string("no-such-\(values.first.map { "\($0)" } ?? "value")"))
        }
        if let items = schema["items"] as? [String: Any], let ref = items["$ref"] as? String, ref.hasSuffix("/EventType") {
            inside.append(.array([.string("credits.spent")]))
            outside.append(.array([.string("credits.stolen")]))
        }
        if let maxItems = schema["maxItems"] as? Int {
            inside.append(.array(Array(repeating: .string("a.b.c"), count: maxItems)))
            outside.append(.array(Array(repeating: .string("a.b.c"), count: maxItems + 1)))
        }
        let isInteger = (schema["type"] as? String) == "integer"
        if isInteger {
            if let minimum = schema["minimum"] as? Int {
                inside.append(.integer(String(minimum)))
                outside.append(.integer(minimum == Int.min ? "-9223372036854775809" : String(minimum - 1)))
            }
            if let maximum = schema["maximum"] as? Int {
                inside.append(.integer(String(maximum)))
                outside.append(.integer(maximum == Int.max ? "9223372036854775808" : String(maximum + 1)))
            }
            if let not = schema["not"] as? [String: Any], let value = not["const"] as? Int { outside.append(.integer(String(value))) }
        }
        let pattern = try (schema["pattern"] as? String).map { try NSRegularExpression(pattern: $0) }
        func fits(_ text: String) -> Bool {
            let count = text.unicodeScalars.count
            if let minimum = schema["minLength"] as? Int, count < minimum { return false }
            if let maximum = schema["maxLength"] as? Int, count > maximum { return false }
            guard let pattern else { return true }
            let range = NSRange(text.startIndex..., in: text)
            return pattern.firstMatch(in: text, options: [.anchored], range: range).map { $0.range == range } ?? false
        }
        if !isInteger, schema["enum"] == nil, (schema["type"] as? String) != "array" {
            if let samples = input.sampleName.flatMap({ patternSamples[$0] }) {
                for text in samples.inside {
                    #expect(fits(text), "\(input.key): \(Sample.string(text)) is listed as allowed but the document refuses it")
                    inside.append(.string(text))
                }
                for text in samples.outside {
                    #expect(!fits(text), "\(input.key): \(Sample.string(text)) is listed as refused but the document allows it")
                    outside.append(.string(text))
                }
            } else if pattern != nil {
                Issue.record("\(input.key) has a pattern and no samples in patternSamples")
            }
            let minimum = schema["minLength"] as? Int ?? 0
            var lengths: [(count: Int, allowed: Bool)] = [(minimum, true), (minimum - 1, false)]
            if let maximum = schema["maxLength"] as? Int { lengths += [(maximum, true), (maximum + 1, false)] }
            for (count, allowed) in lengths where count >= 0 {
                let text = String(repeating: "a", count: count)
                // Lengths of a patterned string come from its samples unless plain letters fit.
                guard pattern == nil || fits(String(repeating: "a", count: max(count, 1))) || !allowed else { continue }
                guard fits(text) == allowed else { continue }
                if allowed { inside.append(.string(text)) } else { outside.append(.string(text)) }
            }
        }
        return (inside, outside)
    }

    /// Sends `call` with `input` set to `value`.
    static func send(
        _ call: OperationCall, _ input: Constrained, _ value: Sample, user: CreateUserResponse, client: any TestClientProtocol
    ) async throws -> TestResponse {
        var path = call.path
        var query: [String] = []
        var body = call.body
        switch input.location {
        case "path": path = path.replacingOccurrences(of: "{\(input.name)}", with: value.uriText)
        case "query": query.append("\(input.name)=\(value.uriText)")
        default: body?[input.name] = value
        }
        // The other path parameters, after the one under test.
        for (name, text) in call.pathValues { path = path.replacingOccurrences(of: "{\(name)}", with: Sample.string(text).uriText) }
        // A fresh key for each call, unless the key is what is tested: a replay answers the first call.
        if body?["idempotency_key"] != nil, input.name != "idempotency_key" { body?["idempotency_key"] = .string(UUID().uuidString) }
        var headers: HTTPFields = [.contentType: "application/json"]
        switch call.auth {
        case .none: break
        case .user: headers[.authorization] = "Bearer \(user.userToken)"
        case .secretKey: headers[.authorization] = "Bearer \(API.secret)"
        }
        let json = body.map { "{" + $0.sorted { $0.key < $1.key }.map { "\(Sample.string($0.key).json):\($0.value.json)" }.joined(separator: ",") + "}" }
        return try await client.execute(
            uri: path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), method: call.method, headers: headers,
            body: json.map { ByteBuffer(string: $0) })
    }

    @Test func everyPatternTheServerChecksIsTheDocumentsOwn() throws {
        let spec = try String(contentsOf: Repository.server.appendingPathComponent("Sources/TallyServer/Resources/openapi.yaml"), encoding: .utf8)
        let document = try #require(try YAMLSubset.parse(spec) as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let parameters = try #require(components["parameters"] as? [String: Any])
        #expect((schemas["WebhookURL"] as? [String: Any])?["pattern"] as? String == APIPattern.webhookURL.source)
        #expect(((parameters["AdminCursor"] as? [String: Any])?["schema"] as? [String: Any])?["pattern"] as? String == APIPattern.adminCursor.source)
        for (name, samples) in Self.patternSamples where name == "WebhookURL" || name == "AdminCursor" {
            let pattern = name == "WebhookURL" ? APIPattern.webhookURL : APIPattern.adminCursor
            for text in samples.inside where text.utf8.count <= 2048 { #expect(pattern.matches(text), "\(name): \(text.prefix(60))") }
            for text in samples.outside where !text.isEmpty && text.utf8.count <= 2048 && !text.hasPrefix("https://h/p") {
                #expect(!pattern.matches(text), "\(name): \(text.prefix(60))")
            }
        }
    }

    @Test func theServedDocumentStatesTheCatalogsCurrenciesProductsAndLongestReservation() async throws {
        var shorter = Harness.catalog
        shorter.maximumReservationSeconds = 900
        let catalog = shorter
        let api = try await API(catalog: catalog)
        try await api.test { client in
            let served = try await client.execute(uri: "/openapi.yaml", method: .get)
            let document = try #require(try YAMLSubset.parse(String(buffer: served.body)) as? [String: Any])
            let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
            #expect((schemas["Currency"] as? [String: Any])?["enum"] as? [String] == catalog.currencies.map(\.code))
            #expect((schemas["ProductID"] as? [String: Any])?["enum"] as? [String] == catalog.products.map(\.productID))
            let reservation = try #require((schemas["ReservationRequest"] as? [String: Any])?["properties"] as? [String: Any])
            #expect((reservation["ttl_seconds"] as? [String: Any])?["maximum"] as? Int == 900)
        }
    }

    @Test func everyConstraintTheDocumentStatesIsTheServers() async throws {
        // Limits out of the way: every call here must reach its handler.
        var catalog = Harness.catalog
        catalog.limits.userRequestsPerMinute = 1_000_000
        catalog.limits.ipRequestsPerMinute = 1_000_000
        let api = try await API(catalog: catalog)
        try await api.test { client in
            let served = try await client.execute(uri: "/openapi.yaml", method: .get)
            let document = try #require(try YAMLSubset.parse(String(buffer: served.body)) as? [String: Any])
            let user = try await client.newUser()
            let created = try await client.execute(
                uri: "/v1/admin/webhooks", method: .post, headers: API.bearer(API.secret), body: ByteBuffer(string: #"{"url":"https://example.com/hook"}"#))
            let endpoint = try #require(API.json(created)["id"] as? String)
            let calls = Self.operationCalls(user: user, endpoint: endpoint)
            let inputs = try Self.constrainedInputs(document)
            #expect(inputs.count > 40, "the document's constraints were not found")
            for input in inputs {
                guard let call = calls[input.operationID] else {
                    Issue.record("\(input.key) is constrained but operationCalls has no call of \(input.operationID)")
                    continue
                }
                let (inside, outside) = try Self.boundaries(input)
                #expect(!inside.isEmpty && !outside.isEmpty, "\(input.key): no values to try")
                for value in inside {
                    let response = try await Self.send(call, input, value, user: user, client: client)
                    let refused =
                        response.status == .badRequest || response.status == .tooManyRequests
                        || (response.status == .unprocessableContent && !call.verifies)
                    #expect(
                        !refused,
                        "\(input.key) = \(value): the document allows it, the server answered \(response.status.code) \(API.errorCode(response) ?? "")")
                }
                // An empty path segment is no route at all (404), and a path's percent-encoded
                // control character reaches the router as its literal escape: neither can be sent.
                for value in outside where !(input.location == "path" && (value.uriText.isEmpty || value.uriText.contains("%"))) {
                    let response = try await Self.send(call, input, value, user: user, client: client)
                    let code = Self.refusalCodes[input.key] ?? "invalid_request"
                    #expect(
                        response.status == .badRequest && API.errorCode(response) == code,
                        "\(input.key) = \(value): the document refuses it, the server answered \(response.status.code) \(API.errorCode(response) ?? "") (expected 400 \(code))"
                    )
                }
            }
        }
    }
}
