public import Foundation
import TallyCore
import TallySQL
import TallyVerify

/// A user as the server knows them.
public struct User: Sendable, Hashable {
    /// Tally's identifier.
    public let id: String
    /// The app's own identifier, when the app gave one.
    public let appUserID: String?
    /// The UUID passed to StoreKit as `appAccountToken`.
    public let appAccountToken: UUID
    /// When the user was created.
    public let createdAt: Date
}

/// What a notification did.
public enum NotificationOutcome: String, Sendable {
    /// Applied for the first time.
    case applied
    /// Seen before (same `notificationUUID`): nothing changed.
    case duplicate
    /// Recorded; it changes nothing this server tracks (a TEST, a declined refund, an older event).
    case recorded
}
