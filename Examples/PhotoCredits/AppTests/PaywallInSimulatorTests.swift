// The photo app's paywall over Xcode's StoreKit testing (Examples/Tally.storekit) in the iOS
// Simulator: Xcode and a macOS runner only (.github/workflows/apple-platforms.yml). Buying needs
// a Tally server; the packs, their prices and the restore are the store's alone.
import Foundation
import PhotoCredits
import StoreKitTest
import TallyKit
import XCTest

@MainActor
final class PaywallInSimulatorTests: XCTestCase {
    func testThePaywallShowsEveryPackWithItsStorePrice() async throws {
        let session = try SKTestSession(configurationFileNamed: "Tally")
        session.disableDialogs = true
        session.clearTransactions()
        let credentials = ServerDelivery.Credentials(userID: "u_simulator", userToken: "tu_simulator", appAccountToken: UUID())
        let manager = try await PurchaseManager.server(
            url: PhotoServer.development, credentials: credentials, productIDs: PhotoStudio.packs,
            database: try await LocalDatabase.standard(named: "tests-\(UUID().uuidString)"))
        let paywall = PaywallModel(manager: manager, productIDs: PhotoStudio.packs, language: .english)
        await paywall.load()
        XCTAssertEqual(paywall.items.map(\.id), PhotoStudio.packs)
        for item in paywall.items { XCTAssertFalse(item.buttonTitle.isEmpty, "\(item.id) shows its price") }
    }
}
