public import Foundation
public import TallyCore
import TallySQL

/// How a consumption request was closed.
public enum ConsumptionAnswerStatus: String, Sendable, CaseIterable {
    /// Apple took the answer.
    case sent
    /// Apple will not take one (the request is too old, or the transaction unknown to it).
    case refused
    /// Not answered in time.
    case expired
}

/// A consumption request claimed for an answer: the body Tally worked out when the request came.
public struct DueConsumptionAnswer: Sendable, Hashable {
    /// The `CONSUMPTION_REQUEST` notification's UUID.
    public let notificationUUID: String
    /// The transaction the customer asked a refund of.
    public let transactionID: String
    /// What the ledger knew when the request came.
    public let body: ConsumptionRequest
    /// The tries made, this one included.
    public let attempts: Int64
}

extension NotificationStore {
    /// Claims up to `limit` consumption requests due an answer (unanswered, received after
    /// `since`, not claimed in the last `lease` seconds), oldest first; each claim counts a try.
    public func claimConsumptionRequests(since: Date, lease: TimeInterval, limit: Int) async throws -> [DueConsumptionAnswer] {
        try await write { executor, time in
            let stale = time - Int64(lease * 1000)
            let rows = try await executor.query(
                """
                SELECT notification_uuid, transaction_id, consumption_json, attempts FROM consumption_requests
                WHERE sent_status IS NULL AND created_at >= \(SQLStorage.millis(since)) AND (claimed_at IS NULL OR claimed_at < \(stale))
                ORDER BY created_at, notification_uuid LIMIT \(Int64(limit))
                """)
            var claimed: [DueConsumptionAnswer] = []
            for row in rows {
                let uuid = try row.text(RequestColumns.notificationUUID)
                // Another server may have claimed it since the read: the condition decides.
                let won = try await executor.execute(
                    """
                    UPDATE consumption_requests SET claimed_at = \(time), attempts = attempts + 1
                    WHERE notification_uuid = \(uuid) AND sent_status IS NULL AND (claimed_at IS NULL OR claimed_at < \(stale))
                    """)
                guard won == 1 else { continue }
                let body = try AppStoreJSON.decoder().decode(ConsumptionRequest.self, from: Data(try row.text(RequestColumns.consumptionJSON).utf8))
                claimed.append(
                    DueConsumptionAnswer(
                        notificationUUID: uuid, transactionID: try row.text(RequestColumns.transactionID), body: body,
                        attempts: try row.int(RequestColumns.attempts) + 1))
            }
            return claimed
        }
    }

    /// Closes a consumption request: `sent`, `refused` (Apple will not take it) or `expired`.
    public func closeConsumptionRequest(_ notificationUUID: String, status: ConsumptionAnswerStatus, detail: String?) async throws {
        _ = try await write { executor, time in
            try await executor.execute(
                """
                UPDATE consumption_requests SET sent_status = \(status), answered_at = \(time), detail = \(detail) \
                WHERE notification_uuid = \(notificationUUID) AND sent_status IS NULL
                """)
        }
    }

    /// Closes as `expired` every request still unanswered that was received before `date`.
    public func expireConsumptionRequests(receivedBefore date: Date) async throws -> Int {
        try await write { executor, time in
            try await executor.execute(
                """
                UPDATE consumption_requests SET sent_status = \(ConsumptionAnswerStatus.expired), answered_at = \(time), detail = 'not answered within 12 hours'
                WHERE sent_status IS NULL AND created_at < \(SQLStorage.millis(date))
                """)
        }
    }
}

/// The columns of `consumption_requests` a claim reads.
private enum RequestColumns {
    static let notificationUUID = SQLColumn("notification_uuid")
    static let transactionID = SQLColumn("transaction_id")
    static let consumptionJSON = SQLColumn("consumption_json")
    static let attempts = SQLColumn("attempts")
}
