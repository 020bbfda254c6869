public import Foundation
public import TallyCore

/// How the server answers Apple's consumption requests (a customer asked a refund of a
/// consumable or a subscription): only when the app's terms have the customer's consent to
/// share consumption data, which Apple requires; with the operator's refund preference.
public struct ConsumptionAnswerPolicy: Sendable, Hashable {
    /// What the operator would like Apple to do with the refund; `undeclared` by default.
    public var refundPreference: ConsumptionRequest.RefundPreference

    /// - Parameter refundPreference: the operator's preference.
    public init(refundPreference: ConsumptionRequest.RefundPreference = .undeclared) {
        self.refundPreference = refundPreference
    }
}

/// Answers the consumption requests in the queue (`consumption_requests`, filled when a
/// `CONSUMPTION_REQUEST` notification is applied) with what the ledger knew, through Send
/// Consumption Information, within Apple's 12 hours.
///
/// Each request is claimed before it is sent and closed once Apple took it, so several servers
/// answer each once, and a crash before the send leaves a claim that lapses after `lease` and is
/// answered then. A crash between Apple's answer and the close sends it again once the claim
/// lapses; Apple keeps the latest of the same information.
public struct ConsumptionAnswerer: Sendable {
    /// What one round did.
    public struct Report: Sendable, Hashable {
        /// Answers Apple took.
        public var sent = 0
        /// Requests Apple refused (it will not take them however often they are sent).
        public var refused = 0
        /// Requests left for a later round (Apple did not answer).
        public var deferred = 0
        /// Requests older than 12 hours, closed unanswered.
        public var expired = 0

        /// A round that did nothing.
        public init() {}
    }

    /// Apple takes answers for 12 hours after its request.
    public static let window: TimeInterval = 12 * 3600

    let apple: AppStoreServerClient
    let notifications: NotificationStore
    let policy: ConsumptionAnswerPolicy
    let now: @Sendable () -> Date
    let lease: TimeInterval

    /// - Parameters:
    ///   - apple: the App Store Server API client.
    ///   - notifications: the queue.
    ///   - policy: the refund preference.
    ///   - now: the server's clock.
    ///   - lease: how long a claim keeps others off a request; 5 minutes by default.
    public init(
        apple: AppStoreServerClient, notifications: NotificationStore, policy: ConsumptionAnswerPolicy, now: @escaping @Sendable () -> Date,
        lease: TimeInterval = 300
    ) {
        self.apple = apple
        self.notifications = notifications
        self.policy = policy
        self.now = now
        self.lease = lease
    }

    /// Answers what is due, up to 100 requests.
    @discardableResult
    public func run() async throws -> Report {
        var report = Report()
        let since = now().addingTimeInterval(-Self.window)
        report.expired = try await notifications.expireConsumptionRequests(receivedBefore: since)
        for due in try await notifications.claimConsumptionRequests(since: since, lease: lease, limit: 100) {
            var body = due.body
            // Apple takes consumption data only with the customer's consent, which the policy attests.
            body.customerConsented = true
            body.refundPreference = policy.refundPreference
            let failure: AppStoreServerAPIError?
            do {
                try await apple.sendConsumptionInformation(due.transactionID, body)
                failure = nil
            } catch {
                failure = error
            }
            switch failure?.kind {
            case nil:
                try await notifications.closeConsumptionRequest(due.notificationUUID, status: .sent, detail: nil)
                report.sent += 1
            case .invalidRequest?, .notFound?:
                try await notifications.closeConsumptionRequest(due.notificationUUID, status: .refused, detail: failure?.description)
                report.refused += 1
            default:
                // The claim lapses and a later round tries again.
                report.deferred += 1
            }
        }
        return report
    }
}
