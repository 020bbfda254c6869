/// Where an order (a purchase prepared on the server before payment) stands.
public struct OrderStatus: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Made; waiting for its payment.
    public static let created = Self(rawValue: "created")
    /// Paid, and what it sells was granted.
    public static let fulfilled = Self(rawValue: "fulfilled")
    /// Closed without a payment: cancelled, declined, never paid.
    public static let failed = Self(rawValue: "failed")
    /// Made, and its time ran out before a payment came (reported, never stored: a payment that
    /// still comes fulfils it).
    public static let expired = Self(rawValue: "expired")

    public static let all: [Self] = [.created, .fulfilled, .failed, .expired]

    /// The values the database stores; ``expired`` is worked out from the order's expiry.
    public static let stored: [Self] = [.created, .fulfilled, .failed]
}
