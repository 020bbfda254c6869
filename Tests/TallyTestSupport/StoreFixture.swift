public import Foundation
public import TallyCore
public import TallyTesting
public import TallyVerify
import Testing

/// A simulated store selling Examples/Tally.storekit on a manual clock, delivering its
/// notifications to an in-memory inbox, and a verifier that trusts only its authority's root.
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public struct StoreFixture: Sendable {
    /// When the store's clock starts: 2026-01-01.
    public static let start = ISO8601DateFormatter().date(from: "2026-01-01T00:00:00Z")!
    /// The app the store sells for.
    public static let bundleID = "com.tally.example"
    /// The app's App Apple ID.
    public static let appAppleID: Int64 = 6_450_000_001
    /// Where the store addresses its notifications (they stay in ``inbox``).
    public static let notificationURL = URL(string: "https://server.tally.test/v1/notifications/appstore")!
    /// The example StoreKit configuration.
    public static let catalog: StoreKitConfiguration = {
        try! StoreKitConfiguration.load(contentsOf: Repository.root.appendingPathComponent("Examples/Tally.storekit"))
    }()
    /// The authority that signs the store's data, minted a day before ``start``.
    public static let authority: TestCertificateAuthority = {
        try! TestCertificateAuthority(profile: .init(issuedAt: start.addingTimeInterval(-86_400)))
    }()
    /// A day.
    public static let day: Duration = .seconds(86_400)

    /// The store.
    public let store: SimulatedAppStore
    /// The notifications the store delivered.
    public let inbox: NotificationInbox
    /// A sandbox verifier for ``bundleID`` that trusts only ``authority``.
    public let verifier: SignedDataVerifier

    /// - Parameters:
    ///   - stateFile: where the store keeps its state between runs; nowhere when nil.
    ///   - timeRate: how fast subscription time runs; as the App Store's when nil.
    ///   - firstTransactionNumber: the first transaction id the store gives.
    /// - Throws: when the store cannot be made (an unreadable state file).
    public init(stateFile: URL? = nil, timeRate: TimeRate? = nil, firstTransactionNumber: Int64 = 2_000_000_100_000_001) throws {
        var configuration = SimulatedAppStore.Configuration(catalog: Self.catalog, bundleID: Self.bundleID, appAppleID: Self.appAppleID)
        configuration.notificationURL = Self.notificationURL
        configuration.stateFile = stateFile
        configuration.timeRate = timeRate
        configuration.firstTransactionNumber = firstTransactionNumber
        inbox = NotificationInbox()
        store = try SimulatedAppStore(configuration: configuration, authority: Self.authority, time: .manual(start: Self.start), transport: inbox)
        verifier = SignedDataVerifier(
            .init(
                bundleID: .equals(Self.bundleID), appAppleID: .equals(Self.appAppleID), environments: [.sandbox],
                rootCertificates: [Self.authority.root]),
            now: { Self.start })
    }

    /// Buys and expects success.
    /// - Throws: ``SimulatedAppStoreError`` when the purchase does not succeed.
    public func buy(
        _ product: String, _ options: SimulatedAppStore.PurchaseOptions = SimulatedAppStore.PurchaseOptions()
    ) async throws -> SimulatedAppStore.SignedTransaction {
        guard case .success(let transaction) = try await store.purchase(product, options: options) else {
            throw SimulatedAppStoreError(.invalidState, "purchase of \(product) did not succeed")
        }
        return transaction
    }

    /// The delivered notifications, verified with their signed data.
    /// - Throws: when one does not verify.
    public func deliveredNotifications() async throws -> [VerifiedNotification] {
        var result: [VerifiedNotification] = []
        for payload in inbox.delivered {
            result.append(try await verifier.verifyNotification(payload, includingSignedData: true).get())
        }
        return result
    }

    /// The latest delivered notification of a type, verified.
    /// - Throws: when none was delivered, or one does not verify.
    public func last(_ type: NotificationType) async throws -> VerifiedNotification {
        let all = try await deliveredNotifications()
        return try #require(all.last { $0.payload.notificationType == type }, "no \(type) notification delivered")
    }
}
