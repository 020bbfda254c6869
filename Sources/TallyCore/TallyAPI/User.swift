public import Foundation

/// `POST /v1/users`.
public struct CreateUserRequest: Codable, Hashable, Sendable {
    /// The app's own identifier for the user (only with the secret key).
    public var appUserID: String?
    /// Creates the request.
    public init(appUserID: String? = nil) { self.appUserID = appUserID }
}

/// The answer to `POST /v1/users`.
public struct CreateUserResponse: Codable, Hashable, Sendable {
    /// Tally's identifier of the user.
    public var userID: String
    /// The UUID to pass to StoreKit as `appAccountToken`; stable for the user.
    public var appAccountToken: UUID
    /// The bearer token for the user's own calls. Shown once.
    public var userToken: String
    /// Whether the user was created by this call (false when `app_user_id` already existed).
    public var created: Bool
    /// What the user received on sign-up.
    public var granted: [Amount]

    /// Creates a value with every field.
    public init(userID: String, appAccountToken: UUID, userToken: String, created: Bool, granted: [Amount]) {
        self.userID = userID
        self.appAccountToken = appAccountToken
        self.userToken = userToken
        self.created = created
        self.granted = granted
    }
}
