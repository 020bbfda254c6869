/// The body of a Get Test Notification Status answer
/// (`GET /inApps/v1/notifications/test/{testNotificationToken}`).
///
/// ```swift
/// let status = try AppStoreJSON.decoder().decode(CheckTestNotificationResponse.self, from: body)
/// let delivered = status.sendAttempts?.contains { $0.sendAttemptResult == .success } ?? false
/// ```
public struct CheckTestNotificationResponse: Codable, Hashable, Sendable {
    /// The test notification, as the JWS the App Store sent.
    public var signedPayload: String?
    /// Every attempt to send it, oldest first.
    public var sendAttempts: [SendAttemptItem]?

    /// An empty response; set the fields you need.
    public init() {}
}
