import Foundation
import TallyCore
import Testing

extension ServerAPI {
    @Suite struct ConsumptionRequestTests {
        static var complete: ConsumptionRequest {
            var request = ConsumptionRequest()
            request.customerConsented = true
            request.consumptionStatus = .partiallyConsumed
            request.platform = .nonApple
            request.sampleContentProvided = false
            request.deliveryStatus = .deliveredWrongItem
            request.appAccountToken = "7389a31a-fb6d-4569-a2a6-db7d85d84813"
            request.accountTenure = .thirtyDaysToNinetyDays
            request.playTime = .oneDayToFourDays
            request.lifetimeDollarsRefunded = .oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents
            request.lifetimeDollarsPurchased = .twoThousandDollarsOrGreater
            request.userStatus = .limitedAccess
            request.refundPreference = .noPreference
            return request
        }

        @Test func aCompleteRequestIsValidAndEncodesApplesIntegers() throws {
            #expect(Self.complete.validationErrors().isEmpty)
            let json = try JSONSerialization.jsonObject(with: AppStoreJSON.encoder().encode(Self.complete)) as? NSDictionary
            #expect(
                json == [
                    "customerConsented": true, "consumptionStatus": 2, "platform": 2, "sampleContentProvided": false,
                    "deliveryStatus": 2, "appAccountToken": "7389a31a-fb6d-4569-a2a6-db7d85d84813", "accountTenure": 4,
                    "playTime": 5, "lifetimeDollarsRefunded": 4, "lifetimeDollarsPurchased": 7, "userStatus": 4,
                    "refundPreference": 3,
                ])
        }

        @Test func anEmptyRequestLacksEveryRequiredField() {
            #expect(
                ConsumptionRequest().validationErrors() == [
                    .invalidCustomerConsented, .invalidConsumptionStatus, .invalidPlatform, .invalidSampleContentProvided,
                    .invalidDeliveryStatus, .invalidAppAccountToken, .invalidAccountTenure, .invalidPlayTime,
                    .invalidLifetimeDollarsRefunded, .invalidLifetimeDollarsPurchased, .invalidUserStatus,
                ])
        }

        @Test func anEmptyAppAccountTokenAndNoRefundPreferenceAreValid() {
            var request = Self.complete
            request.appAccountToken = ""
            request.refundPreference = nil
            #expect(request.validationErrors().isEmpty)
        }

        static let faults: [(String, @Sendable (inout ConsumptionRequest) -> Void, APIErrorCode)] = [
            ("no consent", { $0.customerConsented = false }, .invalidCustomerConsented),
            ("consumption 4", { $0.consumptionStatus = .init(rawValue: 4) }, .invalidConsumptionStatus),
            ("platform 3", { $0.platform = .init(rawValue: 3) }, .invalidPlatform),
            ("delivery 6", { $0.deliveryStatus = .init(rawValue: 6) }, .invalidDeliveryStatus),
            ("delivery -1", { $0.deliveryStatus = .init(rawValue: -1) }, .invalidDeliveryStatus),
            ("token not a UUID", { $0.appAccountToken = "account-42" }, .invalidAppAccountToken),
            ("tenure 8", { $0.accountTenure = .init(rawValue: 8) }, .invalidAccountTenure),
            ("play time 8", { $0.playTime = .init(rawValue: 8) }, .invalidPlayTime),
            ("refunded 8", { $0.lifetimeDollarsRefunded = .init(rawValue: 8) }, .invalidLifetimeDollarsRefunded),
            ("purchased missing", { $0.lifetimeDollarsPurchased = nil }, .invalidLifetimeDollarsPurchased),
            ("user status 5", { $0.userStatus = .init(rawValue: 5) }, .invalidUserStatus),
            ("sample missing", { $0.sampleContentProvided = nil }, .invalidSampleContentProvided),
            ("refund preference 4", { $0.refundPreference = .init(rawValue: 4) }, .generalBadRequest),
        ]

        @Test(arguments: faults.map(\.0))
        func oneFaultyFieldGivesItsOneCode(fault: String) throws {
            let (_, mutate, code) = try #require(Self.faults.first { $0.0 == fault })
            var request = Self.complete
            mutate(&request)
            #expect(request.validationErrors() == [code])
        }

        @Test func aBodyWithAnUnknownValueDecodesButIsInvalid() throws {
            var json = try #require(JSONSerialization.jsonObject(with: AppStoreJSON.encoder().encode(Self.complete)) as? [String: Any])
            json["userStatus"] = 9
            let body = try JSONSerialization.data(withJSONObject: json)
            let request = try AppStoreJSON.decoder().decode(ConsumptionRequest.self, from: body)
            #expect(request.userStatus?.rawValue == 9)
            #expect(request.validationErrors() == [.invalidUserStatus])
        }
    }
}
