import Foundation
import TallyCore
import Testing

@Suite struct RawValueTests {
    @Test func unknownValuesDecodeAndSurviveARoundTrip() throws {
        let json = Data(#"{"environment":"LocalTestingxxx","type":"Hyper-Consumable","offerType":99,"revocationType":"NEW_KIND"}"#.utf8)
        let payload = try AppStoreJSON.decoder().decode(TransactionPayload.self, from: json)
        #expect(payload.environment?.rawValue == "LocalTestingxxx")
        #expect(payload.environment != .production)
        #expect(payload.type?.rawValue == "Hyper-Consumable")
        #expect(payload.offerType?.rawValue == 99)
        let back = try JSONSerialization.jsonObject(with: AppStoreJSON.encoder().encode(payload)) as? NSDictionary
        #expect(back == (try JSONSerialization.jsonObject(with: json) as? NSDictionary))
        #expect(try AppStoreJSON.decode(TransactionPayload.self, from: Array(json)) == payload)
    }

    @Test func aWrongTypeIsAnErrorNotASilentNil() {
        let json = Data(#"{"appAppleId":"blue"}"#.utf8)
        #expect(throws: DecodingError.self) {
            try AppStoreJSON.decoder().decode(AppTransactionPayload.self, from: json)
        }
        #expect(throws: DecodingError.self) {
            try AppStoreJSON.decode(AppTransactionPayload.self, from: Array(json))
        }
    }

    @Test func fractionalMillisecondsAsXcodeWritesThemDecode() throws {
        let json = Data(#"{"signedDate":1697679936056.485,"originalPurchaseDate":-62135769600000}"#.utf8)
        let payload = try AppStoreJSON.decoder().decode(TransactionPayload.self, from: json)
        let signed = try #require(payload.signedDate)
        #expect(abs(signed.timeIntervalSince1970 - 1_697_679_936.056485) < 0.000_001)
        #expect(payload.originalPurchaseDate == Date(timeIntervalSince1970: -62_135_769_600))
    }
}
