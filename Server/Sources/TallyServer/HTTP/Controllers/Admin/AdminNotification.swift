public import Foundation

/// An App Store Server Notification, as the admin sees it (`GET /v1/admin/notifications`).
public struct AdminNotification: Codable, Hashable, Sendable {
    /// The App Store's identifier of the notification.
    public var notificationUuid: String
    /// Its type, such as `DID_RENEW` or `REFUND`.
    public var notificationType: String
    /// Its subtype, such as `AUTO_RENEW_DISABLED`, when it has one.
    public var subtype: String?
    /// The transaction it is about, when it carries one.
    public var transactionID: String?
    /// applied, duplicate or recorded (see ``NotificationOutcome``).
    public var outcome: String
    /// Why it changed less than its type says, for people (a transaction no user has presented yet).
    public var detail: String?
    /// When the server received it.
    public var receivedAt: Date
}
