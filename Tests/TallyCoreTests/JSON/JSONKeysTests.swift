import Foundation
import Testing

@testable import TallyCore

/// Swift's `ID` against Apple's `Id` and the API's `_id`.
@Suite struct JSONKeysTests {
    @Test(arguments: [
        ("transactionID", "transactionId"), ("originalTransactionID", "originalTransactionId"), ("appAppleID", "appAppleId"),
        ("transactionIDNotFound", "transactionIdNotFound"), ("notificationUUID", "notificationUUID"), ("identifier", "identifier"),
        ("offerIdentifier", "offerIdentifier"), ("ID", "ID"), ("id", "id"), ("signedDate", "signedDate"),
    ])
    func appStoreNamesSpellIdentifiersIdAndBackAgain(swift: String, apple: String) {
        #expect(JSONKeys.appStoreName(swift) == apple)
        #expect(JSONKeys.swiftName(appStoreName: apple) == swift)
    }

    @Test(arguments: [
        ("transaction_id", "transactionID"), ("app_apple_id", "appAppleID"), ("Order_ID", "orderID"), ("idempotency_key", "idempotencyKey"),
        ("id", "id"), ("_user_id_", "_userID_"), ("orderid", "orderid"), ("orderId", "orderID"), ("notification_uuid", "notificationUuid"),
    ])
    func snakeCaseNamesReadAsTheSwiftNames(snake: String, swift: String) {
        #expect(JSONKeys.swiftName(snakeCase: snake) == swift)
    }

    @Test func appStorePayloadsKeepApplesNamesBothWays() throws {
        var payload = TransactionPayload()
        payload.transactionID = "2000000000000001"
        payload.bundleID = "com.example"
        payload.productID = "credits.10"
        let json = try #require(String(data: AppStoreJSON.encoder().encode(payload), encoding: .utf8))
        #expect(json.contains(#""transactionId":"2000000000000001""#))
        #expect(json.contains(#""bundleId":"com.example""#))
        #expect(!json.contains("ID\""))
        let decoded = try AppStoreJSON.decode(TransactionPayload.self, from: Array(json.utf8))
        #expect(decoded.transactionID == "2000000000000001")
        #expect(try AppStoreJSON.decoder().decode(TransactionPayload.self, from: Data(json.utf8)) == decoded)
    }

    @Test func theAPIWritesSnakeCaseAndReadsItBack() throws {
        struct Body: Codable, Equatable {
            var transactionID: String
            var appUserID: String?
        }
        let body = Body(transactionID: "t", appUserID: "u")
        let json = try #require(String(data: TallyAPI.encoder().encode(body), encoding: .utf8))
        #expect(json == #"{"app_user_id":"u","transaction_id":"t"}"#)
        #expect(try TallyAPI.decoder().decode(Body.self, from: Data(json.utf8)) == body)
    }
}
