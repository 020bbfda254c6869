public import TallyCore

/// The answer to an admin adjustment (`POST /v1/admin/users/{id}/adjustments`).
public struct AdminAdjustment: Codable, Hashable, Sendable {
    /// The user adjusted.
    public var userID: String
    /// The currency adjusted.
    public var currency: String
    /// The signed amount: credited when positive, taken back when negative.
    public var amount: Int64
    /// Why, as the admin wrote it.
    public var reason: String
    /// The user's balance of the currency after the adjustment.
    public var balance: Balance
    /// Whether this key adjusted before: then nothing changed now.
    public var replayed: Bool
}
