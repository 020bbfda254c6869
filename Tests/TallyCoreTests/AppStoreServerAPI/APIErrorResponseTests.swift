import Foundation
import TallyCore
import TallyTestSupport
import Testing

extension ServerAPI {
    /// Apple's error fixtures decode into ``APIErrorResponse`` field for field, with their typed code.
    @Suite(.enabled(if: Vectors.available, Vectors.skipNote))
    struct APIErrorResponseTests {
        static let fixtures: [(file: String, code: APIErrorCode, status: Int?)] = [
            ("apiException.json", .generalInternal, 500),
            ("apiTooManyRequestsException.json", .rateLimitExceeded, 429),
            ("apiUnknownError.json", APIErrorCode(rawValue: 9_990_000), nil),
            ("invalidAppAccountTokenUUIDError.json", .invalidAppAccountTokenUUID, 400),
            ("familyTransactionNotSupportedError.json", .familyTransactionNotSupported, 400),
            ("transactionIdNotOriginalTransactionId.json", .transactionIDNotOriginalTransactionID, 400),
            ("invalidTransactionIdError.json", .invalidTransactionID, 400),
            ("transactionIdNotFoundError.json", .transactionIDNotFound, 404),
            ("appTransactionDoesNotExistError.json", .appTransactionDoesNotExist, 404),
        ]

        @Test(arguments: fixtures.map(\.file))
        func errorFixtureRoundTripsWithItsCode(file: String) throws {
            let fixture = try #require(Self.fixtures.first { $0.file == file })
            let original = try Vectors.data("apple/models/\(file)")
            let error = try AppStoreJSON.decoder().decode(APIErrorResponse.self, from: original)
            #expect(error.code == fixture.code)
            #expect(error.code?.httpStatus == fixture.status)
            #expect(error.errorMessage?.isEmpty == false)
            #expect(try AppStoreJSON.decode(APIErrorResponse.self, from: original) == error)
            let reencoded = try AppStoreJSON.encoder().encode(error)
            #expect(
                try JSONSerialization.jsonObject(with: reencoded) as? NSDictionary
                    == JSONSerialization.jsonObject(with: original) as? NSDictionary)
        }

        @Test func messagesAreKeptAsSent() throws {
            let error = try AppStoreJSON.decoder().decode(
                APIErrorResponse.self, from: Vectors.data("apple/models/apiTooManyRequestsException.json"))
            #expect(error.errorMessage == "Rate limit exceeded.")
            #expect(error.code?.isRetryable == false)
        }
    }

    @Suite struct APIErrorCodeTests {
        static let constants: [(APIErrorCode, Int64)] = [
            (.invalidRequestRevision, 4_000_005), (.invalidOriginalTransactionID, 4_000_008),
            (.invalidNotificationType, 4_000_018), (.invalidRevoked, 4_000_030),
            (.accountNotFound, 4_040_001), (.generalInternalRetryable, 5_000_001),
        ]

        @Test(arguments: constants)
        func constantsHaveApplesValues(code: APIErrorCode, raw: Int64) {
            #expect(code.rawValue == raw)
        }

        @Test func onlyCodesAppleNamesRetryableAreRetryable() {
            #expect(APIErrorCode.generalInternalRetryable.isRetryable)
            #expect(APIErrorCode.originalTransactionIDNotFoundRetryable.isRetryable)
            #expect(!APIErrorCode.generalInternal.isRetryable)
            #expect(!APIErrorCode.transactionIDNotFound.isRetryable)
        }

        @Test func anEmptyBodyDecodesToNoCode() throws {
            let error = try AppStoreJSON.decoder().decode(APIErrorResponse.self, from: Data("{}".utf8))
            #expect(error.code == nil)
            #expect(error.errorMessage == nil)
        }

        @Test func aRequestErrorIsAnsweredWithItsCodeAndEqualByCode() throws {
            let error = APIRequestError(.invalidSort, "sort SIDEWAYS is unknown")
            #expect(error == APIRequestError(.invalidSort, "another reason"))
            #expect(error != APIRequestError(.invalidRevoked, "sort SIDEWAYS is unknown"))
            let body = try JSONSerialization.jsonObject(with: AppStoreJSON.encoder().encode(error.response)) as? NSDictionary
            #expect(body == ["errorCode": 4_000_021, "errorMessage": "sort SIDEWAYS is unknown"])
            #expect(error.file.hasSuffix("APIErrorResponseTests.swift"))
        }
    }
}
