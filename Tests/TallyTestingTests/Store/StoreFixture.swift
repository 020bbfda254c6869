import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// A simulated store selling Examples/Tally.storekit on a manual clock, delivering to an
/// in-memory inbox, and a verifier that trusts only its authority's root.
struct StoreFixture {
    static let start = ISO8601DateFormatter().date(from: "2026-01-01T00:00:00Z")!
    static let bundleID = "com.tally.example"
    static let notificationURL = URL(string: "https://server.tally.test/v1/notifications/appstore")!
    static let catalog: StoreKitConfiguration = {
        try! StoreKitConfiguration.load(contentsOf: Vectors.repository.appendingPathComponent("Examples/Tally.storekit"))
    }()
    static let authority: TestCertificateAuthority = {
        try! TestCertificateAuthority(profile: .init(issuedAt: start.addingTimeInterval(-86_400)))
    }()

    let store: SimulatedAppStore
    let inbox: NotificationInbox
    let verifier: SignedDataVerifier

    init(stateFile: URL? = nil, timeRate: TimeRate? = nil, firstTransactionNumber: Int64 = 2_000_000_100_000_001) throws {
        var configuration = SimulatedAppStore.Configuration(catalog: Self.catalog, bundleID: Self.bundleID, appAppleID: 6_450_000_001)
        configuration.notificationURL = Self.notificationURL
        configuration.stateFile = stateFile
        configuration.timeRate = timeRate
        configuration.firstTransactionNumber = firstTransactionNumber
        inbox = NotificationInbox()
        store = try SimulatedAppStore(configuration: configuration, authority: Self.authority, time: .manual(start: Self.start), transport: inbox)
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

    /// The delivered notifications, verified with their signed data.
    func deliveredNotifications() async throws -> [VerifiedNotification] {
        var result: [VerifiedNotification] = []
        for payload in inbox.delivered {
            result.append(try await verifier.verifyNotification(payload, includingSignedData: true).get())
        }
        return result
    }

    /// The latest delivered notification of a type, verified.
    func last(_ type: NotificationType) async throws -> VerifiedNotification {
        let all = try await deliveredNotifications()
        return try #require(all.last { $0.payload.notificationType == type }, "no \(type) notification delivered")
    }

    static let day: Duration = .seconds(86_400)
}
