/// The body of a Request a Test Notification answer (`POST /inApps/v1/notifications/test`).
///
/// ```swift
/// let sent = try AppStoreJSON.decoder().decode(SendTestNotificationResponse.self, from: body)
/// // later: GET /inApps/v1/notifications/test/{sent.testNotificationToken}
/// ```
public struct SendTestNotificationResponse: Codable, Hashable, Sendable {
    /// The token that identifies the test notification, for Get Test Notification Status.
    public var testNotificationToken: String?

    /// An empty response; set the fields you need.
    public init() {}
}
