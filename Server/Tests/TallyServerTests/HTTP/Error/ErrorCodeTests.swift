import Foundation
import Hummingbird
import TallyCore
import TallyTestSupport
import Testing

@testable import TallyServer

/// Every error code the server answers with has its HTTP status, the codes are exactly those
/// `TallyErrorCode` declares and the OpenAPI document lists, and the error body keeps its shape.
@Suite struct ErrorCodeTests {
    /// Each code's status, as the API has always answered it.
    static let statuses: [(TallyAPIError.Code, Int)] = [
        (.invalidRequest, 400), (.invalidAmount, 400), (.unknownCurrency, 400), (.unknownProduct, 400),
        (.invalidIdempotencyKey, 400), (.unauthorized, 401), (.insufficientCredits, 403), (.notFound, 404),
        (.transactionBelongsToAnotherUser, 409), (.idempotencyKeyReused, 409), (.orderMismatch, 409), (.reservationClosed, 409),
        (.usedExceedsReservation, 400), (.conflict, 409), (.verificationFailed, 422), (.verificationUnavailable, 503),
        (.transactionNotInReceipt, 422),
        (.transactionNotFound, 404),
        (.appleNotConfigured, 422),
        (.appleUnavailable, 503),
        (.payloadTooLarge, 413), (.rateLimited, 429), (.methodNotAllowed, 405), (.internalError, 500), (.unavailable, 503),
    ]

    /// The codes `TallyErrorCode.swift` declares, each with the statuses its comment names
    /// (`/// 400 / 404: …` above `public static let name = Self(rawValue: "raw_value")`).
    static func declared() throws -> [(rawValue: String, statuses: Set<Int>)] {
        let file = Repository.root.appendingPathComponent("Sources/TallyCore/TallyAPI/TallyErrorCode.swift")
        let source = try String(contentsOf: file, encoding: .utf8)
        let declaration = try Regex(#"/// ([0-9 /]+):[^\n]*\n\s*public static let \w+ = Self\(rawValue: "([a-z_]+)"\)"#)
        return source.matches(of: declaration).map { match in
            let statuses = (match.output[1].substring ?? "").split(separator: "/").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return (String(match.output[2].substring ?? ""), Set(statuses))
        }
    }

    /// The values of the OpenAPI document's `ErrorCode` enumeration.
    static func documented() throws -> [String] {
        let spec = try String(contentsOf: Repository.server.appendingPathComponent("Sources/TallyServer/Resources/openapi.yaml"), encoding: .utf8)
        let lines = spec.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0 == "    ErrorCode:" })
        var list = ""
        var inList = false
        for line in lines[start...] {
            if !inList, let open = line.range(of: "enum: [") {
                inList = true
                list += line[open.upperBound...]
            } else if inList {
                list += line
            }
            if inList, list.contains("]") { break }
        }
        return list.prefix { $0 != "]" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test(arguments: StorageError.Code.allCases)
    func aStorageRefusalIsAnsweredAsTheAPIErrorOfItsCode(code: StorageError.Code) {
        var refusal = StorageError(code, "not enough credits: 2 available")
        refusal.available = 2
        refusal.currency = "credits"
        let error = TallyAPIError(refusal)
        #expect(error.code.rawValue == code.rawValue)
        #expect(error.detail == APIErrorBody.Detail(code: TallyErrorCode(rawValue: code.rawValue), message: refusal.message, available: 2, currency: "credits"))
        #expect(error.file == refusal.file && error.line == refusal.line)
    }

    @Test(arguments: statuses)
    func everyCodeAnswersItsStatus(code: TallyAPIError.Code, status: Int) {
        #expect(Int(code.status.code) == status)
        #expect(TallyAPIError(code, "m").status == code.status)
        #expect(TallyAPIError(code, "m").response(requestID: "r").status.code == status)
    }

    @Test func theStatusTableCoversEveryCodeOnce() {
        #expect(Self.statuses.map(\.0) == TallyAPIError.Code.allCases)
    }

    @Test func theCodesAreExactlyThoseTallyErrorCodeDeclaresWithTheStatusItsCommentNames() throws {
        let declared = try Self.declared()
        #expect(declared.count >= 21)
        #expect(declared.map(\.rawValue) == TallyAPIError.Code.allCases.map(\.rawValue))
        for (rawValue, statuses) in declared {
            let code = try #require(TallyAPIError.Code(rawValue: rawValue))
            #expect(statuses.contains(Int(code.status.code)), "\(rawValue) answers \(code.status.code), its comment says \(statuses.sorted())")
            #expect(code.errorCode == TallyErrorCode(rawValue: rawValue))
        }
    }

    @Test func theOpenAPIDocumentListsEveryCodeAndNoOther() throws {
        #expect(try Self.documented() == TallyAPIError.Code.allCases.map(\.rawValue))
    }

    @Test func theErrorBodyKeepsItsShape() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            var headers = API.bearer(user.userToken)
            headers[.init("X-Request-Id")!] = "req-1"
            let spend = try await client.execute(
                uri: "/v1/me/spend", method: .post, headers: headers,
                body: API.body(SpendRequest(currency: "credits", amount: 1_000, idempotencyKey: "k")))
            #expect(spend.status == .forbidden)
            #expect(spend.headers[.contentType] == "application/json")
            #expect(
                String(buffer: spend.body)
                    == #"{"error":{"available":2,"code":"insufficient_credits","currency":"credits","message":"not enough credits: 2 available","request_id":"req-1"}}"#
            )

            let anonymous = try await client.execute(uri: "/v1/me", method: .get, headers: [.init("X-Request-Id")!: "req-2"])
            #expect(anonymous.status == .unauthorized)
            #expect(
                String(buffer: anonymous.body)
                    == #"{"error":{"code":"unauthorized","message":"a user token is required (Authorization: Bearer)","request_id":"req-2"}}"#)
        }
    }

    @Test func retryAfterAndAllowTravelAsHeaders() {
        var limited = TallyAPIError(.rateLimited, "too many requests; retry in 3 s")
        limited.retryAfter = 3
        #expect(limited.response(requestID: "r").headers[.retryAfter] == "3")
        var refused = TallyAPIError(.methodNotAllowed, "not here")
        refused.allowedMethods = "GET, HEAD"
        #expect(refused.response(requestID: "r").headers[.allow] == "GET, HEAD")
        #expect(TallyAPIError(.notFound, "m").response(requestID: "r").headers[.allow] == nil)
    }

    @Test func aCodeThisVersionDoesNotKnowStillDecodes() throws {
        let detail = try TallyAPI.decoder().decode(APIErrorBody.self, from: Data(#"{"error":{"code":"from_a_newer_server","message":"m"}}"#.utf8))
        #expect(detail.error.code.rawValue == "from_a_newer_server")
        #expect(TallyAPIError.Code(rawValue: detail.error.code.rawValue) == nil)
    }
}
