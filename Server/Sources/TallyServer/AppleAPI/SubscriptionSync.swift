public import Foundation
import TallyCore

/// Asks Apple, on a schedule, about the subscriptions that are renewing now or just lapsed, and
/// takes in what it says as a notification would: a renewal, a billing problem or an expiry
/// reaches `GET /v1/me` within minutes even when its notification was lost.
public struct SubscriptionSync: Sendable {
    let apple: AppStoreServerClient
    let notifications: NotificationStore
    let now: @Sendable () -> Date
    /// How far before a subscription's expiry it is asked about.
    let ahead: TimeInterval
    /// How long after its expiry it is still asked about (a renewal Apple retries, a grace period).
    let behind: TimeInterval
    /// How long a subscription asked about is left alone.
    let quiet: TimeInterval

    /// - Parameters:
    ///   - apple: the App Store Server API client.
    ///   - notifications: where subscriptions to check are found and what Apple says is recorded.
    ///   - now: the server's clock.
    ///   - ahead: how far before an expiry to ask; 10 minutes by default.
    ///   - behind: how long after an expiry to ask; 2 hours by default.
    ///   - quiet: how long to leave a subscription asked about alone; 15 minutes by default.
    public init(
        apple: AppStoreServerClient, notifications: NotificationStore, now: @escaping @Sendable () -> Date, ahead: TimeInterval = 600,
        behind: TimeInterval = 7200, quiet: TimeInterval = 900
    ) {
        self.apple = apple
        self.notifications = notifications
        self.now = now
        self.ahead = ahead
        self.behind = behind
        self.quiet = quiet
    }

    /// One round, of at most 50 subscriptions.
    /// - Returns: how many subscriptions were asked about.
    @discardableResult
    public func run() async throws -> Int {
        let moment = now()
        let due = try await notifications.subscriptionsNearRenewal(
            from: moment.addingTimeInterval(-behind), to: moment.addingTimeInterval(ahead), checkedBefore: moment.addingTimeInterval(-quiet),
            limit: 50)
        for original in due {
            try await notifications.recordFromApple(try await statuses(original))
            try await notifications.markSubscriptionChecked(original)
        }
        return due.count
    }

    /// The subscription's states; none when Apple no longer knows it (it is not asked again soon).
    private func statuses(_ original: String) async throws -> [AppStoreServerClient.SubscriptionState] {
        do {
            return try await apple.subscriptionStatuses(original)
        } catch {
            if error.kind == .notFound { return [] }
            throw error
        }
    }
}

extension NotificationStore {
    /// Takes in what Apple says of subscriptions now (Get All Subscription Statuses), as their
    /// notifications would have: each latest transaction with its signed renewal info, so a
    /// renewal, a billing grace period, billing retry or an expiry is what the account shows.
    /// The refresh endpoint, the scheduled sync and `tally import` take Apple's word this way.
    func recordFromApple(_ states: [AppStoreServerClient.SubscriptionState]) async throws {
        for state in states {
            try await recordFromApple(
                state.transaction.verified, jws: state.transaction.jws, renewal: state.renewal?.verified, renewalJWS: state.renewal?.jws)
        }
    }
}
