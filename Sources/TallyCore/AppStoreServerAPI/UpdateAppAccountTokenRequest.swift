public import Foundation

/// The body of a Set App Account Token request
/// (`PUT /inApps/v1/transactions/{originalTransactionID}/appAccountToken`).
///
/// The App Store answers 400 with ``APIErrorCode/invalidAppAccountTokenUUID`` when the token
/// is not a UUID.
///
/// ```swift
/// let body = try AppStoreJSON.encoder().encode(UpdateAppAccountTokenRequest(appAccountToken: account.uuid))
/// ```
public struct UpdateAppAccountTokenRequest: Codable, Hashable, Sendable {
    /// The UUID to attach to the transaction, as sent (Apple's examples use lowercase).
    public var appAccountToken: String?

    /// An empty request; set the fields you need.
    public init() {}

    /// A request that sets `token`, written in lowercase.
    /// - Parameter token: The UUID that maps the purchase to an account in your system.
    public init(appAccountToken token: UUID) {
        appAccountToken = token.uuidString.lowercased()
    }

    /// ``appAccountToken`` as a UUID, or `nil` when it is absent or not a UUID.
    public var appAccountTokenUUID: UUID? { appAccountToken.flatMap(UUID.init(uuidString:)) }
}
