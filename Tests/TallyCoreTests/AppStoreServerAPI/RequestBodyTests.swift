import Foundation
import TallyCore
import Testing

extension ServerAPI {
    @Suite struct NotificationHistoryRequestTests {
        @Test func encodesDatesAsEpochMillisecondsAndTypesAsApplesStrings() throws {
            var request = NotificationHistoryRequest()
            request.startDate = Date(timeIntervalSince1970: 1_698_148_900)
            request.endDate = Date(timeIntervalSince1970: 1_698_148_950)
            request.notificationType = .subscribed
            request.notificationSubtype = .initialBuy
            request.onlyFailures = true
            let body = try AppStoreJSON.encoder().encode(request)
            #expect(
                try JSONSerialization.jsonObject(with: body) as? NSDictionary == [
                    "startDate": 1_698_148_900_000, "endDate": 1_698_148_950_000,
                    "notificationType": "SUBSCRIBED", "notificationSubtype": "INITIAL_BUY", "onlyFailures": true,
                ])
            #expect(try AppStoreJSON.decoder().decode(NotificationHistoryRequest.self, from: body) == request)
        }

        @Test func aTransactionFilterDecodesFromApplesJSON() throws {
            let body = Data(#"{"startDate":1698148900000,"endDate":1698148950000,"transactionId":"999733843","onlyFailures":false}"#.utf8)
            let request = try AppStoreJSON.decode(NotificationHistoryRequest.self, from: body)
            #expect(request.transactionID == "999733843")
            #expect(request.notificationType == nil)
            #expect(request.onlyFailures == false)
            #expect(request.startDate == Date(timeIntervalSince1970: 1_698_148_900))
        }
    }

    @Suite struct UpdateAppAccountTokenRequestTests {
        @Test func aUUIDIsSentInLowercase() throws {
            let token = try #require(UUID(uuidString: "7389A31A-FB6D-4569-A2A6-DB7D85D84813"))
            let body = try AppStoreJSON.encoder().encode(UpdateAppAccountTokenRequest(appAccountToken: token))
            #expect(String(decoding: body, as: UTF8.self) == #"{"appAccountToken":"7389a31a-fb6d-4569-a2a6-db7d85d84813"}"#)
            let decoded = try AppStoreJSON.decoder().decode(UpdateAppAccountTokenRequest.self, from: body)
            #expect(decoded.appAccountTokenUUID == token)
        }

        @Test func aTokenThatIsNotAUUIDDecodesAsSentWithoutAUUID() throws {
            let body = Data(#"{"appAccountToken":"account-42"}"#.utf8)
            let request = try AppStoreJSON.decoder().decode(UpdateAppAccountTokenRequest.self, from: body)
            #expect(request.appAccountToken == "account-42")
            #expect(request.appAccountTokenUUID == nil)
        }
    }
}
