import Foundation
import ServerTestSupport
import TallyTesting
import TallyVerify

/// A simulated store selling Examples/Tally.storekit on a manual clock, delivering its
/// notifications to memory, and a verifier that trusts only its authority's root.
struct StoreFixture {
    static let start = ISO8601DateFormatter().date(from: "2026-01-01T00:00:00Z")!
    static let bundleID = "com.tally.example"
    static let catalog: StoreKitConfiguration = {
        try! StoreKitConfiguration.load(contentsOf: Repository.root.appendingPathComponent("Examples/Tally.storekit"))
    }()
    static let authority: TestCertificateAuthority = {
        try! TestCertificateAuthority(profile: .init(issuedAt: start.addingTimeInterval(-86_400)))
    }()

    let store: SimulatedAppStore
    let verifier: SignedDataVerifier

    init() throws {
        var configuration = SimulatedAppStore.Configuration(catalog: Self.catalog, bundleID: Self.bundleID, appAppleID: 6_450_000_001)
        configuration.notificationURL = URL(string: "https://server.tally.test/v1/notifications/appstore")!
        store = try SimulatedAppStore(
            configuration: configuration, authority: Self.authority, time: .manual(start: Self.start), transport: NotificationInbox())
        verifier = SignedDataVerifier(
            .init(
                bundleID: .equals(Self.bundleID), appAppleID: .equals(6_450_000_001), environments: [.sandbox],
                rootCertificates: [Self.authority.root]),
            now: { Self.start })
    }

    /// Buys and expects success.
    func buy(
        _ product: String, _ options: SimulatedAppStore.PurchaseOptions = SimulatedAppStore.PurchaseOptions()
    ) async throws -> SimulatedAppStore.SignedTransaction {
        guard case .success(let transaction) = try await store.purchase(product, options: options) else {
            throw SimulatedAppStoreError(.invalidState, "purchase of \(product) did not succeed")
        }
        return transaction
    }
}
