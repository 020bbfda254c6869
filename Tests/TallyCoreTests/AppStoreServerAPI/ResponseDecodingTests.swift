import Foundation
import TallyCore
import TallyTestSupport
import Testing

extension ServerAPI {
    /// Apple's App Store Server API response fixtures decode into Tally's models field for field:
    /// re-encoding the decoded value gives back every key and value of the fixture.
    @Suite(.enabled(if: Vectors.available, Vectors.skipNote))
    struct ResponseDecodingTests {
        static let fixtures: [(file: String, type: any (Codable & Hashable & Sendable).Type)] = [
            ("transactionInfoResponse.json", TransactionInfoResponse.self),
            ("transactionHistoryResponse.json", HistoryResponse.self),
            ("transactionHistoryResponseWithMalformedEnvironment.json", HistoryResponse.self),
            ("getAllSubscriptionStatusesResponse.json", StatusResponse.self),
            ("getRefundHistoryResponse.json", RefundHistoryResponse.self),
            ("getNotificationHistoryResponse.json", NotificationHistoryResponse.self),
            ("requestTestNotificationResponse.json", SendTestNotificationResponse.self),
            ("getTestNotificationStatusResponse.json", CheckTestNotificationResponse.self),
        ]

        @Test(arguments: fixtures.map(\.file))
        func fixtureRoundTripsFieldForField(file: String) throws {
            let type = try #require(Self.fixtures.first { $0.file == file }?.type)
            let original = try Vectors.data("apple/models/\(file)")
            let reencoded = try Self.roundTrip(original, as: type)
            let expected = try JSONSerialization.jsonObject(with: original) as? NSDictionary
            let actual = try JSONSerialization.jsonObject(with: reencoded) as? NSDictionary
            #expect(expected != nil)
            #expect(actual == expected, "\(file) lost or changed a field")
        }

        @Test(arguments: fixtures.map(\.file))
        func strictDecoderReadsWhatJSONDecoderReads(file: String) throws {
            let type = try #require(Self.fixtures.first { $0.file == file }?.type)
            #expect(try Self.decodersAgree(Vectors.data("apple/models/\(file)"), as: type), "\(file) decodes differently")
        }

        @Test func transactionInfoHasItsSignedTransaction() throws {
            let info = try Self.decode(TransactionInfoResponse.self, "transactionInfoResponse.json")
            #expect(info.signedTransactionInfo == "signed_transaction_info_value")
        }

        @Test func historyHasItsTypedValues() throws {
            let history = try Self.decode(HistoryResponse.self, "transactionHistoryResponse.json")
            #expect(history.revision == "revision_output")
            #expect(history.hasMore == true)
            #expect(history.bundleID == "com.example")
            #expect(history.appAppleID == 323_232)
            #expect(history.environment == .localTesting)
            #expect(history.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
        }

        @Test func historyKeepsAnUnknownEnvironmentAsSent() throws {
            let history = try Self.decode(HistoryResponse.self, "transactionHistoryResponseWithMalformedEnvironment.json")
            #expect(history.environment?.rawValue == "LocalTestingxxx")
            #expect(history.environment != .localTesting)
            #expect(history.appAppleID == 323_232)
        }

        @Test func historyWithATextAppAppleIDIsRefused() throws {
            let data = try Vectors.data("apple/models/transactionHistoryResponseWithMalformedAppAppleId.json")
            #expect(throws: DecodingError.self) { try AppStoreJSON.decoder().decode(HistoryResponse.self, from: data) }
            #expect(throws: DecodingError.self) { try AppStoreJSON.decode(HistoryResponse.self, from: data) }
        }

        @Test func subscriptionStatusesHaveTheirTypedValues() throws {
            let statuses = try Self.decode(StatusResponse.self, "getAllSubscriptionStatusesResponse.json")
            #expect(statuses.environment == .localTesting)
            #expect(statuses.bundleID == "com.example")
            #expect(statuses.appAppleID == 5_454_545)
            let groups = try #require(statuses.data)
            #expect(groups.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
            let first = try #require(groups.first?.lastTransactions)
            #expect(first.map(\.status) == [.active, .revoked])
            #expect(first.map(\.originalTransactionID) == ["3749183", "5314314134"])
            #expect(first.last?.signedTransactionInfo == "signed_transaction_two")
            #expect(first.last?.signedRenewalInfo == "signed_renewal_two")
            #expect(groups.last?.lastTransactions?.first?.status == .expired)
        }

        @Test func refundHistoryHasItsTypedValues() throws {
            let refunds = try Self.decode(RefundHistoryResponse.self, "getRefundHistoryResponse.json")
            #expect(refunds.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
            #expect(refunds.revision == "revision_output")
            #expect(refunds.hasMore == true)
        }

        @Test func notificationHistoryHasItsTypedValues() throws {
            let history = try Self.decode(NotificationHistoryResponse.self, "getNotificationHistoryResponse.json")
            #expect(history.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a")
            #expect(history.hasMore == true)
            let items = try #require(history.notificationHistory)
            #expect(items.map(\.signedPayload) == ["signed_payload_one", "signed_payload_two"])
            let attempts = try #require(items.first?.sendAttempts)
            #expect(attempts.map(\.sendAttemptResult) == [.noResponse, .success])
            #expect(attempts.first?.attemptDate == Date(timeIntervalSince1970: 1_698_148_900))
            #expect(attempts.last?.attemptDate == Date(timeIntervalSince1970: 1_698_148_950))
            #expect(items.last?.sendAttempts?.first?.sendAttemptResult == .circularRedirect)
        }

        @Test func testNotificationResponsesHaveTheirTypedValues() throws {
            let sent = try Self.decode(SendTestNotificationResponse.self, "requestTestNotificationResponse.json")
            #expect(sent.testNotificationToken == "ce3af791-365e-4c60-841b-1674b43c1609")

            let status = try Self.decode(CheckTestNotificationResponse.self, "getTestNotificationStatusResponse.json")
            #expect(status.signedPayload == "signed_payload")
            #expect(status.sendAttempts?.map(\.sendAttemptResult) == [.noResponse, .success])
            #expect(status.sendAttempts?.first?.attemptDate == Date(timeIntervalSince1970: 1_698_148_900))
        }

        static func decode<T: Decodable>(_ type: T.Type, _ file: String) throws -> T {
            try AppStoreJSON.decoder().decode(type, from: Vectors.data("apple/models/\(file)"))
        }

        static func roundTrip(_ data: Data, as type: any (Codable & Hashable & Sendable).Type) throws -> Data {
            func trip<T: Codable & Hashable & Sendable>(_: T.Type) throws -> Data {
                try AppStoreJSON.encoder().encode(AppStoreJSON.decoder().decode(T.self, from: data))
            }
            return try trip(type)
        }

        static func decodersAgree(_ data: Data, as type: any (Codable & Hashable & Sendable).Type) throws -> Bool {
            func agree<T: Codable & Hashable & Sendable>(_: T.Type) throws -> Bool {
                try AppStoreJSON.decoder().decode(T.self, from: data) == AppStoreJSON.decode(T.self, from: data)
            }
            return try agree(type)
        }
    }
}
