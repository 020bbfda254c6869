/// How often a subscription's allowance starts again (it does not accumulate).
public struct AllowancePeriod: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Every day.
    public static let day = Self(rawValue: "day")
    /// Every week.
    public static let week = Self(rawValue: "week")
    /// Every month.
    public static let month = Self(rawValue: "month")
    /// Every year.
    public static let year = Self(rawValue: "year")

    public static let all: [Self] = [.day, .week, .month, .year]
}
