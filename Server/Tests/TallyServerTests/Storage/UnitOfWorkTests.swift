import Foundation
import TallyCore
import TallySQL
import TallyVerify
import Testing

@testable import TallyServer

/// A write is one unit of work: what it queues for after the commit runs only once it has
/// committed, and every way of changing a user's access says so in an event.
@Suite struct UnitOfWorkTests {
    struct Rollback: Error {}

    /// What ran, in order, from whichever task.
    final class Trace: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    @Test(arguments: Backend.available)
    func workQueuedForAfterTheCommitRunsOnlyWhenTheWriteCommits(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let ran = Trace()
        let attempts = Counter()
        _ = try await harness.storage.transactions.write { context, _ in
            context.afterCommit { ran.append("committed") }
            #expect(ran.all.isEmpty)
        }
        await #expect(throws: Rollback.self) {
            try await harness.storage.transactions.write { context, _ in
                context.afterCommit { ran.append("rolled back") }
                throw Rollback()
            }
        }
        // An attempt that loses a race is run again: only the attempt that commits counts.
        _ = try await harness.storage.transactions.write { context, _ in
            let attempt = attempts.next()
            context.afterCommit { ran.append("attempt \(attempt)") }
            if attempt == 1 { throw SQLDatabaseError(.retryable, "lost a race") }
        }
        #expect(ran.all == ["committed", "attempt 2"])
    }

    /// The ways a user's access changes, each through its own write path.
    enum AccessChange: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// The app posts the purchase.
        case presenterDelivers
        /// The App Store's notification brings the purchase of a user its token names.
        case notificationForTheTokensUser
        /// A notification recorded the purchase without a user; the app posts it later.
        case presenterClaimsWhatANotificationRecorded
        /// The App Store Server API reports the purchase.
        case recordedFromApple
        /// A refund notification takes it back.
        case refunded
        /// A reversed refund gives it back.
        case refundReversed
        /// An operator grants an entitlement.
        case operatorGrants

        var testDescription: String { rawValue }
    }

    @Test(arguments: Backend.available, AccessChange.allCases)
    func everyWayOfChangingAccessWritesItsEntitlementEvent(backend: Backend, change: AccessChange) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let product = "com.tally.zorya.lifetime"
        func notification(_ type: NotificationType) async throws -> (VerifiedNotification, String) {
            struct NotSent: Error { let type: NotificationType }
            guard let last = try await harness.notifications().last(where: { $0.0.payload.notificationType == type }) else {
                throw NotSent(type: type)
            }
            return last
        }
        var expected: [TallyEventType] = [.entitlementGranted]
        switch change {
        case .presenterDelivers:
            let (verified, jws) = try await harness.buy(product, for: user)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        case .notificationForTheTokensUser:
            _ = try await harness.buy(product, for: user)
            let (purchase, jws) = try await notification(.oneTimeCharge)
            #expect(try await harness.storage.notifications.apply(purchase, jws: jws) == .applied)
        case .presenterClaimsWhatANotificationRecorded:
            let (verified, jws) = try await harness.buy(product, for: nil)
            let (purchase, notificationJWS) = try await notification(.oneTimeCharge)
            _ = try await harness.storage.notifications.apply(purchase, jws: notificationJWS)
            #expect(try await Self.entitlementEvents(harness, user).isEmpty)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        case .recordedFromApple:
            let (verified, jws) = try await harness.buy(product, for: user)
            try await harness.storage.notifications.recordFromApple(verified, jws: jws, renewal: nil, renewalJWS: nil)
        case .refunded, .refundReversed:
            let (verified, jws) = try await harness.buy(product, for: user)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
            try await harness.store.refund(transactionID: verified.payload.transactionID!)
            let (refund, refundJWS) = try await notification(.refund)
            _ = try await harness.storage.notifications.apply(refund, jws: refundJWS)
            expected = [.entitlementGranted, .entitlementRemoved]
            if change == .refundReversed {
                try await harness.store.reverseRefund(transactionID: verified.payload.transactionID!)
                let (reversal, reversalJWS) = try await notification(.refundReversed)
                #expect(try await harness.storage.notifications.apply(reversal, jws: reversalJWS) == .applied)
                expected.append(.entitlementGranted)
            }
        case .operatorGrants:
            _ = try await harness.storage.console.grantEntitlement(
                actor: "ana", userID: user.id, entitlement: "zorya.lifetime", until: Harness.start.addingTimeInterval(86_400),
                reason: "support case", idempotencyKey: "g1")
        }
        let events = try await Self.entitlementEvents(harness, user)
        #expect(events.map(\.type) == expected)
        #expect(events.allSatisfy { $0.data.entitlements == ["zorya.lifetime"] })
        let access = try await harness.storage.users.account(user: user).entitlements.first { $0.id == "zorya.lifetime" }
        #expect((access?.active ?? false) == (expected.last == .entitlementGranted))
    }

    static func entitlementEvents(_ harness: Harness, _ user: User) async throws -> [TallyEvent] {
        try await harness.storage.webhooks.events(for: .api, after: nil, type: nil, userID: user.id, limit: 1000).events.filter {
            $0.type == .entitlementGranted || $0.type == .entitlementRemoved
        }
    }
}
