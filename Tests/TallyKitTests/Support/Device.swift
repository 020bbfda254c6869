import Foundation
import TallyCore
import TallyKit
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedDevice {
    /// The ledger reads the phone's clock, as an app's does; its trusted time runs on uptime.
    /// It verifies app receipts against the simulated store's receipt chain, issued to
    /// `receiptDevice` (this phone by default).
    /// The device's ledger, checking app receipts against `receiptDevice` and StoreKit 2's JWS
    /// against `verificationDevice` (this phone's by default).
    func onDeviceLedger(
        _ database: LocalDatabase, receiptDevice: DeviceIdentifier? = nil, verificationDevice: UUID? = nil
    ) async throws -> OnDeviceLedger {
        let time = self.time
        let receiptVerifier = ReceiptVerifier(
            .init(bundleID: .equals(Kit.bundleID), environments: [.sandbox, .production], rootCertificates: [try await appStore.receiptAuthority().root]),
            now: { time.now })
        return try await OnDeviceLedger(
            database: database, catalog: Kit.onDeviceCatalog, verifier: Kit.verifier { time.now }, receiptVerifier: receiptVerifier,
            deviceIdentifier: receiptDevice ?? identifier, deviceVerificationID: verificationDevice ?? deviceVerificationID, now: { [self] in now },
            uptime: { [self] in uptime })
    }

    /// The app launched with on-device delivery.
    func launchOnDevice(_ configure: (inout PurchaseManager.Configuration) -> Void = { _ in }) async throws -> (PurchaseManager, OnDeviceLedger) {
        let database = try await database()
        let ledger = try await onDeviceLedger(database)
        let manager = try await launch(delivery: ledger, database: database, productIDs: Kit.reports.map(Kit.report) + ["com.tally.zorya.lifetime"], configure)
        return (manager, ledger)
    }
}
