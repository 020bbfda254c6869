/// Where a reservation (an amount held for metered use) stands.
public struct ReservationStatus: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Held: not spendable, not spent yet.
    public static let held = Self(rawValue: "held")
    /// What was used is spent; the rest returned.
    public static let committed = Self(rawValue: "committed")
    /// Returned whole.
    public static let released = Self(rawValue: "released")
    /// Returned whole because nobody committed it in time.
    public static let expired = Self(rawValue: "expired")

    public static let all: [Self] = [.held, .committed, .released, .expired]

    /// Whether it is over: committed, released or expired.
    public var isClosed: Bool { self != .held }
}
