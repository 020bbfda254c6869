import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// The app's own purchase, for an app that went from paid to free: which version the customer
/// first got, read from StoreKit 2's AppTransaction or StoreKit 1's receipt and verified on the
/// device.
@Suite(.timeLimit(.minutes(2))) struct AppPurchaseTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func bothStoreKitsTellTheSameFirstVersionAndDate() async throws {
        let device = try await Device()
        let (manager, _) = try await device.launchOnDevice()
        let app = try await manager.appPurchase()
        #expect(app.originalApplicationVersion == "1.0", "the sandbox says 1.0 whatever the version")
        #expect(app.environment == .sandbox)
        #expect(app.appTransactionID != nil)
        let firstDate = try #require(app.originalPurchaseDate)

        // The same customer's older phone, on StoreKit 1: the app receipt says the same.
        let older = SimulatedDevice(appStore: device.appStore, time: device.time, storeKit1: true)
        let (olderManager, _) = try await older.launchOnDevice()
        let fromReceipt = try await olderManager.appPurchase()
        #expect(fromReceipt.originalApplicationVersion == "1.0")
        #expect(fromReceipt.originalPurchaseDate == firstDate)
        #expect(fromReceipt.appTransactionID == nil)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anAppTransactionSignedForAnotherDeviceIsRefused() async throws {
        let device = try await Device()
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database, verificationDevice: UUID())
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: [Kit.report("career")])
        let error = await #expect(throws: TallyError.self) { try await manager.appPurchase() }
        #expect(error?.code == .verificationFailed)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func anAppTransactionFromAnUntrustedSignerIsRefused() async throws {
        // The store's signer is not the one the ledger trusts.
        let stranger = try TestCertificateAuthority(profile: .init(issuedAt: Kit.start.addingTimeInterval(-86_400)))
        var configuration = SimulatedAppStore.Configuration(catalog: Kit.storeCatalog, bundleID: Kit.bundleID, appAppleID: Kit.appAppleID)
        configuration.firstTransactionNumber = 2_000_000_900_000_000
        let appStore = try SimulatedAppStore(configuration: configuration, authority: stranger, time: .manual(start: Kit.start))
        let device = SimulatedDevice(appStore: appStore, time: ManualDate(Kit.start))
        let (manager, _) = try await device.launchOnDevice()
        let error = await #expect(throws: TallyError.self) { try await manager.appPurchase() }
        #expect(error?.code == .verificationFailed)
    }

    @Test func firstVersionsCompareAsBuildNumbers() {
        func purchase(_ version: String?) -> AppPurchase {
            var payload = AppTransactionPayload()
            payload.originalApplicationVersion = version
            return AppPurchase(payload)
        }
        #expect(purchase("41").firstVersion(isBefore: "42"))
        #expect(!purchase("42").firstVersion(isBefore: "42"))
        #expect(purchase("1.9").firstVersion(isBefore: "1.10"), "components compare as numbers, not text")
        #expect(!purchase("1.10").firstVersion(isBefore: "1.9"))
        #expect(purchase("1").firstVersion(isBefore: "1.0.1"))
        #expect(!purchase("1.0").firstVersion(isBefore: "1"), "1.0 and 1 are the same build")
        #expect(!purchase(nil).firstVersion(isBefore: "42"), "unknown: not before")
        #expect(!purchase("beta").firstVersion(isBefore: "42"))
        #expect(!purchase("41").firstVersion(isBefore: "4x"))
    }
}
