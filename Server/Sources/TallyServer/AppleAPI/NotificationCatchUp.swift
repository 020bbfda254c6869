public import Foundation
public import TallyCore
import TallyVerify

/// Catches up with the App Store Server Notifications the server missed (it was down, or
/// Apple's deliveries failed): asks each environment's notification history from where the
/// last catch-up got to, and applies what it finds through the same path as a delivered
/// notification, so each one changes things once, by its `notificationUUID`, whichever way it
/// came.
///
/// A catch-up that stops part way (a crash, Apple down) leaves its mark where it was: the next
/// one reads the same window again, and what was applied already is a duplicate.
public struct NotificationCatchUp: Sendable {
    /// What one catch-up did.
    public struct Report: Sendable, Hashable {
        /// Notifications applied now: they had been missed.
        public var applied = 0
        /// Notifications the server had already.
        public var duplicates = 0
        /// History pages read.
        public var pages = 0
    }

    let apple: AppStoreServerClient
    let notifications: NotificationStore
    let environments: [AppStoreEnvironment]
    let now: @Sendable () -> Date
    /// How far back the first catch-up of an environment looks.
    let firstWindow: TimeInterval
    /// How far before its mark a catch-up starts again, for notifications that reach the history late.
    let overlap: TimeInterval

    /// - Parameters:
    ///   - apple: the App Store Server API client.
    ///   - notifications: where notifications are applied and the marks kept.
    ///   - environments: the environments to catch up with.
    ///   - now: the current time.
    ///   - firstWindow: how far back the first catch-up looks; a day by default.
    ///   - overlap: how far before the mark each catch-up starts; 10 minutes by default.
    public init(
        apple: AppStoreServerClient, notifications: NotificationStore, environments: [AppStoreEnvironment], now: @escaping @Sendable () -> Date,
        firstWindow: TimeInterval = 86_400, overlap: TimeInterval = 600
    ) {
        self.apple = apple
        self.notifications = notifications
        self.environments = environments
        self.now = now
        self.firstWindow = firstWindow
        self.overlap = overlap
    }

    /// One catch-up of every environment; each environment's mark moves to the time the
    /// catch-up started once all of its history to then is applied.
    /// - Throws: what the client or the storage threw; the marks of environments not finished stay.
    @discardableResult
    public func run() async throws -> Report {
        var report = Report()
        for environment in environments {
            let end = now()
            let mark = try await notifications.catchUpMark(environment: environment)
            // Apple keeps 180 days of history and refuses a start before that.
            let oldest = end.addingTimeInterval(-180 * 86_400 + 60)
            var request = NotificationHistoryRequest()
            request.startDate = max(oldest, (mark ?? end.addingTimeInterval(-firstWindow)).addingTimeInterval(-overlap))
            request.endDate = end
            var token: String?
            repeat {
                let page = try await apple.notificationHistory(request, paginationToken: token, environment: environment)
                report.pages += 1
                for (jws, verified) in page.notifications {
                    switch try await notifications.apply(verified, jws: jws) {
                    case .duplicate: report.duplicates += 1
                    default: report.applied += 1
                    }
                }
                token = page.hasMore ? page.paginationToken : nil
            } while token != nil
            try await notifications.moveCatchUpMark(environment: environment, to: end)
        }
        return report
    }
}
