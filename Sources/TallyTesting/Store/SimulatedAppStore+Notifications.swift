public import Foundation
public import TallyCore

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// A notification the simulated store made, and what became of its delivery.
    public struct SentNotification: Sendable, Hashable {
        /// The notification's unique identifier.
        public let uuid: String
        /// The event.
        public let type: NotificationType
        /// Details of the event.
        public let subtype: NotificationSubtype?
        /// The transaction it is about, if any.
        public let transactionID: String?
        /// The body's `signedPayload`.
        public let signedPayload: String
        /// When it was made.
        public let createdAt: Date
        /// Every delivery attempt: when, and `SUCCESS` or why not (Apple's `sendAttemptResult` values).
        public let attempts: [(date: Date, result: String)]
        /// Whether an attempt succeeded.
        public let delivered: Bool
        /// When the next attempt is due, if any.
        public let nextAttemptAt: Date?

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.uuid == rhs.uuid && lhs.attempts.count == rhs.attempts.count }
        public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
    }

    /// Every notification made, oldest first.
    public var notifications: [SimulatedAppStore.SentNotification] {
        state.notifications.map(Self.public)
    }

    static func `public`(_ record: NotificationRecord) -> SimulatedAppStore.SentNotification {
        SimulatedAppStore.SentNotification(
            uuid: record.uuid, type: record.type, subtype: record.subtype, transactionID: record.transactionID,
            signedPayload: record.signedPayload, createdAt: record.createdAt,
            attempts: record.attempts.map { ($0.date, $0.result) }, delivered: record.delivered, nextAttemptAt: record.nextAttemptAt)
    }

    /// Sends a `TEST` notification, as Request a Test Notification; returns its token.
    /// - Throws: ``SimulatedAppStoreError`` when it cannot be signed or saved.
    public func requestTestNotification() throws(SimulatedAppStoreError) -> String {
        let token = UUID().uuidString.lowercased()
        try notify(.test, subtype: nil, transaction: nil, subscription: nil, testToken: token)
        try save()
        return token
    }

    /// Makes, signs and queues a notification; it is delivered by ``tick()`` or ``advance(by:)``.
    func notify(
        _ type: NotificationType, subtype: NotificationSubtype?, transaction: TransactionPayload?, subscription originalTransactionID: String? = nil,
        consumptionReason: ConsumptionRequestReason? = nil, testToken: String? = nil
    ) throws(SimulatedAppStoreError) {
        var data = NotificationData()
        data.environment = configuration.environment
        data.appAppleID = configuration.appAppleID
        data.bundleID = configuration.bundleID
        if type != .test { data.bundleVersion = configuration.bundleVersion }
        if let transaction {
            var signedNow = transaction
            signedNow.signedDate = now
            data.signedTransactionInfo = try sign(signedNow)
        }
        if let originalTransactionID, let index = state.subscriptionIndex(originalTransactionID: originalTransactionID) {
            data.signedRenewalInfo = try sign(renewalPayload(state.subscriptions[index]))
            data.status = state.subscriptions[index].status
        }
        data.consumptionRequestReason = consumptionReason

        var payload = NotificationPayload()
        payload.notificationType = type
        payload.subtype = subtype
        payload.notificationUUID = UUID().uuidString.lowercased()
        payload.data = data
        payload.version = "2.0"
        payload.signedDate = now
        // The history is kept for the notification history API; the oldest go first past 10,000.
        if state.notifications.count >= 10_000 {
            state.notifications.removeFirst(state.notifications.count - 9_999)
        }
        state.notifications.append(
            NotificationRecord(
                uuid: payload.notificationUUID!, type: type, subtype: subtype, transactionID: transaction?.transactionID,
                signedPayload: try sign(payload), createdAt: now,
                nextAttemptAt: configuration.notificationURL == nil ? nil : now, testToken: testToken))
    }

    func nextDeliveryDate() -> Date? {
        state.notifications.compactMap(\.nextAttemptAt).min()
    }

    /// Attempts every notification that is due, one at a time, in order.
    func deliverDueNotifications() async {
        guard !delivering, let url = configuration.notificationURL else { return }
        delivering = true
        defer { delivering = false }
        while let index = state.notifications.indices
            .filter({ state.notifications[$0].nextAttemptAt.map { $0 <= now } ?? false })
            .min(by: { state.notifications[$0].nextAttemptAt! < state.notifications[$1].nextAttemptAt! })
        {
            let uuid = state.notifications[index].uuid
            let body = (try? JSONSerialization.data(withJSONObject: ["signedPayload": state.notifications[index].signedPayload])) ?? Data()
            let attemptDate = now
            attemptsMade += 1
            let result: String
            do {
                let status = try await transport.post(body, to: url)
                // Apple counts 200 to 206 as delivered, and every other status as a failure.
                result = (200...206).contains(status) ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
            } catch {
                result = "NO_RESPONSE"
            }
            // State may have changed while awaiting: find the record again.
            guard let current = state.notifications.firstIndex(where: { $0.uuid == uuid }) else { continue }
            state.notifications[current].attempts.append(DeliveryAttempt(date: attemptDate, result: result))
            if result == "SUCCESS" {
                state.notifications[current].delivered = true
                state.notifications[current].nextAttemptAt = nil
            } else {
                let retries = state.notifications[current].attempts.count - 1
                if retries < configuration.retrySchedule.count {
                    state.notifications[current].nextAttemptAt = attemptDate.addingTimeInterval(Self.seconds(configuration.retrySchedule[retries]))
                } else {
                    state.notifications[current].nextAttemptAt = nil
                }
            }
        }
        try? save()
    }
}
