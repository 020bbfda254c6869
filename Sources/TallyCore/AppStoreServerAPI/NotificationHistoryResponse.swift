public import Foundation

/// The body of a Get Notification History answer: one page of notifications the App Store
/// sent, or tried to send, with every attempt.
///
/// ```swift
/// let page = try AppStoreJSON.decoder().decode(NotificationHistoryResponse.self, from: body)
/// let failed = page.notificationHistory?.filter { $0.sendAttempts?.last?.sendAttemptResult != .success }
/// if page.hasMore == true { /* ask again with paginationToken: page.paginationToken */ }
/// ```
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    /// The token to send as the `paginationToken` query parameter to get the next page.
    public var paginationToken: String?
    /// Whether the App Store has more notifications than this page holds.
    public var hasMore: Bool?
    /// The notifications of this page.
    public var notificationHistory: [NotificationHistoryResponseItem]?

    /// An empty response; set the fields you need.
    public init() {}
}

/// One notification in a ``NotificationHistoryResponse``.
public struct NotificationHistoryResponseItem: Codable, Hashable, Sendable {
    /// The notification, as the JWS the App Store sent (`signedPayload` of `responseBodyV2`).
    public var signedPayload: String?
    /// Every attempt to send it, oldest first.
    public var sendAttempts: [SendAttemptItem]?

    /// An empty item; set the fields you need.
    public init() {}
}

/// One attempt of the App Store to send a notification to the server.
public struct SendAttemptItem: Codable, Hashable, Sendable {
    /// When the App Store tried.
    public var attemptDate: Date?
    /// How the attempt went.
    public var sendAttemptResult: SendAttemptResult?

    /// An empty item; set the fields you need.
    public init() {}
}
