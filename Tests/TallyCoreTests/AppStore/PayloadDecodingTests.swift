import Foundation
import TallyCore
import TallyTestSupport
import Testing

/// Apple's model fixtures decode into Tally's models field for field: re-encoding the decoded
/// value gives back every key and value of the fixture, so no field is dropped or altered.
@Suite(.enabled(if: Vectors.available, Vectors.skipNote))
struct PayloadDecodingTests {
    static let fixtures: [(file: String, type: any AppStoreSignedPayload.Type)] = [
        ("signedTransaction.json", TransactionPayload.self),
        ("signedTransactionWithRevocation.json", TransactionPayload.self),
        ("signedRenewalInfo.json", RenewalInfoPayload.self),
        ("signedNotification.json", NotificationPayload.self),
        ("signedConsumptionRequestNotification.json", NotificationPayload.self),
        ("signedSummaryNotification.json", NotificationPayload.self),
        ("signedExternalPurchaseTokenNotification.json", NotificationPayload.self),
        ("signedExternalPurchaseTokenSandboxNotification.json", NotificationPayload.self),
        ("signedRescindConsentNotification.json", NotificationPayload.self),
        ("appTransaction.json", AppTransactionPayload.self),
        ("decodedRealtimeRequest.json", RealtimeRequestPayload.self),
    ]

    @Test(arguments: fixtures.map(\.file))
    func fixtureRoundTripsFieldForField(file: String) throws {
        let type = try #require(Self.fixtures.first { $0.file == file }?.type)
        let original = try Vectors.data("apple/models/\(file)")
        let reencoded = try Self.roundTrip(original, as: type)
        let expected = try JSONSerialization.jsonObject(with: original) as? NSDictionary
        let actual = try JSONSerialization.jsonObject(with: reencoded) as? NSDictionary
        #expect(actual == expected, "\(file) lost or changed a field")
        // The verifier's own decoder reads the fixture field for field too.
        let fast = try JSONSerialization.jsonObject(with: Self.fastRoundTrip(original, as: type)) as? NSDictionary
        #expect(fast == expected, "\(file) lost or changed a field in AppStoreJSON.decode")
    }

    @Test func appDataRoundTripsFieldForField() throws {
        let original = try Vectors.data("apple/models/appData.json")
        let decoded = try AppStoreJSON.decoder().decode(AppData.self, from: original)
        #expect(decoded.appAppleID == 987_654_321)
        #expect(decoded.environment == .sandbox)
        let reencoded = try AppStoreJSON.encoder().encode(decoded)
        #expect(
            try JSONSerialization.jsonObject(with: reencoded) as? NSDictionary
                == JSONSerialization.jsonObject(with: original) as? NSDictionary)
    }

    @Test func transactionFieldsHaveTheirTypedValues() throws {
        let payload = try AppStoreJSON.decoder().decode(
            TransactionPayload.self, from: Vectors.data("apple/models/signedTransaction.json"))
        #expect(payload.transactionID == "23456")
        #expect(payload.originalTransactionID == "12345")
        #expect(payload.type == .autoRenewableSubscription)
        #expect(payload.inAppOwnershipType == .purchased)
        #expect(payload.revocationReason == .appIssue)
        #expect(payload.offerType == .introductory)
        #expect(payload.transactionReason == .purchase)
        #expect(payload.offerDiscountType == .payAsYouGo)
        #expect(payload.environment == .localTesting)
        #expect(payload.billingPlanType == .monthly)
        #expect(payload.price == 10_990)
        #expect(payload.purchaseDate == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(payload.appAccountTokenUUID == UUID(uuidString: "7e3fb20b-4cdb-47cc-936d-99d65f608138"))
        #expect(payload.advancedCommerceInfo?.items?.first?.refunds?.first?.refundType?.rawValue == "PRORATED")
        #expect(payload.commitmentInfo?.totalBillingPeriods == 12)
        #expect(payload.validationDate == payload.signedDate)
    }

    @Test func renewalAndNotificationFieldsHaveTheirTypedValues() throws {
        let renewal = try AppStoreJSON.decoder().decode(
            RenewalInfoPayload.self, from: Vectors.data("apple/models/signedRenewalInfo.json"))
        #expect(renewal.expirationIntent == .customerCancelled)
        #expect(renewal.autoRenewStatus == .on)
        #expect(renewal.priceIncreaseStatus == .customerHasNotResponded)
        #expect(renewal.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
        #expect(renewal.commitmentInfo?.commitmentRenewalBillingPlanType == .monthly)

        let notification = try AppStoreJSON.decoder().decode(
            NotificationPayload.self, from: Vectors.data("apple/models/signedConsumptionRequestNotification.json"))
        #expect(notification.notificationType == .consumptionRequest)
        #expect(notification.data?.consumptionRequestReason == .unintendedPurchase)
        #expect(notification.data?.status == .active)

        let summary = try AppStoreJSON.decoder().decode(
            NotificationPayload.self, from: Vectors.data("apple/models/signedSummaryNotification.json"))
        #expect(summary.subtype == .summary)
        #expect(summary.summary?.succeededCount == 5)
        #expect(summary.appIdentity.bundleID == "com.example")

        let app = try AppStoreJSON.decoder().decode(
            AppTransactionPayload.self, from: Vectors.data("apple/models/appTransaction.json"))
        #expect(app.originalPlatform == .iOS)
        #expect(app.validationDate == app.receiptCreationDate)
    }

    @Test func externalPurchaseTokenDerivesItsEnvironmentFromTheIdentifier() throws {
        let production = try AppStoreJSON.decoder().decode(
            NotificationPayload.self, from: Vectors.data("apple/models/signedExternalPurchaseTokenNotification.json"))
        let sandbox = try AppStoreJSON.decoder().decode(
            NotificationPayload.self, from: Vectors.data("apple/models/signedExternalPurchaseTokenSandboxNotification.json"))
        #expect(production.appIdentity.environment == .production)
        #expect(sandbox.appIdentity.environment == .sandbox)
        #expect(production.appIdentity.appAppleID == 55_555)
    }

    static func fastRoundTrip(_ data: Data, as type: any AppStoreSignedPayload.Type) throws -> Data {
        func trip<P: AppStoreSignedPayload>(_: P.Type) throws -> Data {
            try AppStoreJSON.encoder().encode(AppStoreJSON.decode(P.self, from: Array(data)))
        }
        return try trip(type)
    }

    static func roundTrip(_ data: Data, as type: any AppStoreSignedPayload.Type) throws -> Data {
        func trip<P: AppStoreSignedPayload>(_: P.Type) throws -> Data {
            try AppStoreJSON.encoder().encode(AppStoreJSON.decoder().decode(P.self, from: data))
        }
        return try trip(type)
    }
}
