/// A page of notifications, newest first.
public struct AdminNotificationPage: Codable, Hashable, Sendable {
    /// The notifications of this page.
    public var notifications: [AdminNotification]
    /// The `cursor` of the next page; nil on the last.
    public var nextCursor: String?
}
