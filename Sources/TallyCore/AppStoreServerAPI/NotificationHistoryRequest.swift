public import Foundation

/// The body of a Get Notification History request (`POST /inApps/v1/notifications/history`).
///
/// Apple wants ``startDate`` and ``endDate`` (within the past 180 days), and at most one of
/// ``notificationType`` and ``transactionID``. Dates encode as epoch milliseconds with
/// ``AppStoreJSON/encoder()``; the page token travels as the `paginationToken` query parameter.
///
/// ```swift
/// var request = NotificationHistoryRequest()
/// request.startDate = now().addingTimeInterval(-7 * 86_400)
/// request.endDate = now()
/// request.onlyFailures = true
/// let body = try AppStoreJSON.encoder().encode(request)
/// ```
public struct NotificationHistoryRequest: Codable, Hashable, Sendable {
    /// The start of the period; notifications sent at or after it are included.
    public var startDate: Date?
    /// The end of the period; notifications sent before it are included.
    public var endDate: Date?
    /// Only notifications of this type.
    public var notificationType: NotificationType?
    /// Only notifications of this subtype; needs ``notificationType`` too.
    public var notificationSubtype: NotificationSubtype?
    /// Only notifications about the customer who owns this transaction.
    public var transactionID: String?
    /// Only notifications that have not reached the server yet, retries included.
    public var onlyFailures: Bool?

    /// An empty request; set the fields you need.
    public init() {}
}
