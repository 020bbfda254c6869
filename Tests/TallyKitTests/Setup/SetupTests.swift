import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@testable import TallyKit

/// Setting TallyKit up: mistakes that would make every purchase paid-but-never-credited are
/// refused when the objects are made, and each mode has one short way to be set up.
struct SetupTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aLedgerWithoutAReceiptVerifierIsRefusedAtConstructionWhereStoreKit1CanRun() async throws {
        let device = try await Device()
        let database = try await device.database()
        let time = device.time
        let error = await #expect(throws: TallyError.self) {
            try await OnDeviceLedger(
                database: database, catalog: Kit.onDeviceCatalog, verifier: Kit.verifier { time.now }, storeKit1: true, now: { time.now })
        }
        #expect(error?.code == .configurationInvalid)
        #expect(error?.detail == "no_receipt_verifier")
        #expect(error?.reason.contains("receiptVerifier") == true)
        #expect(error?.presentation(in: .english).title == "Purchases aren't set up")
        #expect(error?.presentation(in: .ukrainian).title == "Покупки не налаштовано")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aLedgerWithoutAReceiptVerifierIsAcceptedWhereStoreKit1CannotRun() async throws {
        let device = try await Device()
        let database = try await device.database()
        let time = device.time
        _ = try await OnDeviceLedger(
            database: database, catalog: Kit.onDeviceCatalog, verifier: Kit.verifier { time.now }, storeKit1: false, now: { time.now })
        // With one, StoreKit 1 or not, it is made.
        _ = try await device.onDeviceLedger(database)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func storeKit1CanRunExactlyWhereThePlatformHasStoreKitOutsideVisionOS() {
        #if canImport(StoreKit) && !os(visionOS)
        #expect(OnDeviceLedger.storeKit1CanRun)
        #else
        #expect(!OnDeviceLedger.storeKit1CanRun)
        #endif
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theOnDeviceFactoryMakesAManagerThatCreditsAPurchase() async throws {
        let device = try await Device()
        let receiptRoot = try await device.appStore.receiptAuthority().root
        let time = device.time
        let manager = try await PurchaseManager.onDevice(
            catalog: Kit.onDeviceCatalog, appAppleID: Kit.appAppleID, bundleID: Kit.bundleID,
            configuration: Device.configuration(productIDs: [Kit.report("career")]) { _ in }, store: device.store,
            database: try await device.database(), deviceIdentifier: device.identifier, deviceVerificationID: device.deviceVerificationID,
            trust: { signed, receipts in
                // Tests trust the simulated App Store's roots instead of Apple's, explicitly.
                signed.rootCertificates = [Kit.authority.root]
                receipts.rootCertificates = [receiptRoot]
            }, now: { time.now })
        await manager.start()
        _ = try await manager.buy(Kit.report("career"))
        #expect(try await manager.available("report.career") == 1)
        #expect(try await device.appStore.unfinishedTransactions().isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theOnDeviceFactoryNamesBundleMainsIdentifierOrRefusesWithoutOne() async throws {
        let device = try await Device()
        let make = { () async throws(TallyError) -> PurchaseManager in
            try await PurchaseManager.onDevice(
                catalog: Kit.onDeviceCatalog, appAppleID: Kit.appAppleID, store: device.store, database: try await device.database())
        }
        if let main = Bundle.main.bundleIdentifier {
            // A test runner has an identifier of its own: the verifier expects it, not the example's.
            #expect(main != Kit.bundleID)
            _ = try await make()
        } else {
            let error = await #expect(throws: TallyError.self) { try await make() }
            #expect(error?.code == .configurationInvalid)
            #expect(error?.detail == "no_bundle_id")
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theServerFactoryKeepsStatePerUser() async throws {
        let device = try await Device()
        let credentials = ServerDelivery.Credentials(userID: "user-7", userToken: "token", appAccountToken: UUID())
        let manager = try await PurchaseManager.server(
            url: URL(string: "https://tally.example.com")!, credentials: credentials, productIDs: ["com.tally.photo.credits.50"],
            store: device.store, database: try await device.database())
        #expect(manager.configuration.scope == "user-7")
        #expect(manager.configuration.productIDs == ["com.tally.photo.credits.50"])
    }

    /// A purchase made with Xcode's StoreKit testing: an Xcode-environment transaction signed by
    /// the developer's Mac's self-signed certificate alone.
    static func xcodePurchase(signedBy mac: TestCertificateAuthority) throws -> StoreTransaction {
        var payload = TransactionPayload()
        payload.transactionID = "0"
        payload.originalTransactionID = "0"
        payload.bundleID = Kit.bundleID
        payload.productID = Kit.report("career")
        payload.type = .consumable
        payload.quantity = 1
        payload.environment = .xcode
        payload.signedDate = Kit.start
        payload.purchaseDate = Kit.start
        let header = try TestCertificateAuthority.headerSegment(x5c: [mac.root])
        return try StoreTransaction(
            jws: try TestCertificateAuthority.sign(json: AppStoreJSON.encoder().encode(payload), headerSegment: header, key: mac.rootKey))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aPurchaseMadeInXcodeIsCreditedOnlyWithXcodesCertificateGivenTheDebugWay() async throws {
        let mac = try TestCertificateAuthority(profile: .init(issuedAt: Kit.start.addingTimeInterval(-86_400)))
        let purchase = try Self.xcodePurchase(signedBy: mac)
        let device = try await Device()
        let time = device.time
        func manager(xcode certificate: Data?) async throws -> PurchaseManager {
            try await PurchaseManager.onDevice(
                catalog: Kit.onDeviceCatalog, appAppleID: Kit.appAppleID, bundleID: Kit.bundleID, xcodeTestingCertificate: certificate,
                configuration: Device.configuration(productIDs: [Kit.report("career")]) { _ in }, store: device.store,
                database: try await device.database(), now: { time.now })
        }
        // As shipped (Release): refused.
        let release = try await manager(xcode: nil)
        let error = await #expect(throws: TallyError.self) { try await release.delivery.deliver(purchase, ticket: nil) }
        #expect(error?.code == .verificationFailed)
        #expect(error?.detail == "bad_certificate_chain_length")
        // Debug, with the certificate saved from Xcode: credited.
        let debug = try await manager(xcode: Data(try TestCertificateAuthority.der(mac.root)))
        let receipt = try await debug.delivery.deliver(purchase, ticket: nil)
        #expect(receipt.granted == [Amount(currency: "report.career", amount: 1)])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anXcodeCertificateThatDoesNotParseIsRefusedWithACode() async throws {
        let device = try await Device()
        let error = await #expect(throws: TallyError.self) {
            try await PurchaseManager.onDevice(
                catalog: Kit.onDeviceCatalog, appAppleID: Kit.appAppleID, bundleID: Kit.bundleID, xcodeTestingCertificate: Data("x".utf8),
                store: device.store, database: try await device.database())
        }
        #expect(error?.code == .configurationInvalid)
        #expect(error?.detail == "malformed_certificate")
    }
}
