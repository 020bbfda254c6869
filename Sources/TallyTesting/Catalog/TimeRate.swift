import Foundation

/// How fast subscription time passes in the simulated store: Xcode's `SKTestSession.TimeRate`
/// (`SKTestTimeRate`), with the same raw values, as a StoreKit configuration's
/// `settings._timeRate` holds them.
///
/// Renewal intervals and the billing grace and retry periods follow the tables in Apple's
/// documentation of each case (developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum/…).
/// Where Apple gives no table the rule is this type's own, written on ``renewalInterval(for:)``
/// and ``billingWindows(for:)``.
///
/// ```swift
/// let rate = TimeRate(name: "monthly-renewal-every-thirty-seconds")!
/// rate.renewalInterval(for: SubscriptionPeriod(iso8601: "P1Y")!)   // .seconds(360)
/// ```
public struct TimeRate: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// Xcode's raw value.
    public let rawValue: Int

    /// A known time rate; `nil` for a raw value Xcode does not define.
    public init?(rawValue: Int) {
        guard Self.names[rawValue] != nil else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: Int) { self.rawValue = rawValue }

    /// Subscriptions renew in real time: use calendar arithmetic (``SubscriptionPeriod/advance(_:times:)``).
    public static let realTime = Self(0)
    /// Deprecated by Apple: one day passes in one hour.
    public static let oneHourIsOneDay = Self(1)
    /// Deprecated by Apple: one day passes in thirty minutes.
    public static let thirtyMinutesIsOneDay = Self(2)
    /// Deprecated by Apple: one day passes in five minutes.
    public static let fiveMinutesIsOneDay = Self(3)
    /// Deprecated by Apple: one day passes in one minute.
    public static let oneMinuteIsOneDay = Self(4)
    /// Deprecated by Apple: one day passes in thirty seconds.
    public static let thirtySecondsIsOneDay = Self(5)
    /// Deprecated by Apple: one day passes in one second.
    public static let oneSecondIsOneDay = Self(6)
    /// A monthly subscription renews every hour (weekly every 15 minutes).
    public static let monthlyRenewalEveryHour = Self(10)
    /// A monthly subscription renews every 30 minutes (weekly every 10 minutes).
    public static let monthlyRenewalEveryThirtyMinutes = Self(11)
    /// A monthly subscription renews every 15 minutes (weekly every 5 minutes).
    public static let monthlyRenewalEveryFifteenMinutes = Self(12)
    /// A monthly subscription renews every 5 minutes (weekly every 3 minutes); the sandbox's default.
    public static let monthlyRenewalEveryFiveMinutes = Self(13)
    /// A monthly subscription renews every 30 seconds (weekly every 10 seconds).
    public static let monthlyRenewalEveryThirtySeconds = Self(15)
    /// Every subscription renews every 15 minutes, whatever its period.
    public static let oneRenewalEveryFifteenMinutes = Self(1000)
    /// Every subscription renews every 5 minutes, whatever its period.
    public static let oneRenewalEveryFiveMinutes = Self(1001)
    /// Every subscription renews every minute, whatever its period.
    public static let oneRenewalEveryMinute = Self(1002)
    /// Every subscription renews every 30 seconds, whatever its period.
    public static let oneRenewalEveryThirtySeconds = Self(1003)
    /// Every subscription renews every 10 seconds, whatever its period.
    public static let oneRenewalEveryTenSeconds = Self(1004)
    /// Every subscription renews every 2 seconds, whatever its period; the fastest.
    public static let oneRenewalEveryTwoSeconds = Self(1005)

    /// Every time rate Xcode defines, by raw value.
    public static let allCases: [TimeRate] = names.keys.sorted().map(Self.init)

    private static let names: [Int: String] = [
        0: "realTime",
        1: "oneHourIsOneDay", 2: "thirtyMinutesIsOneDay", 3: "fiveMinutesIsOneDay",
        4: "oneMinuteIsOneDay", 5: "thirtySecondsIsOneDay", 6: "oneSecondIsOneDay",
        10: "monthlyRenewalEveryHour", 11: "monthlyRenewalEveryThirtyMinutes",
        12: "monthlyRenewalEveryFifteenMinutes", 13: "monthlyRenewalEveryFiveMinutes",
        15: "monthlyRenewalEveryThirtySeconds",
        1000: "oneRenewalEveryFifteenMinutes", 1001: "oneRenewalEveryFiveMinutes",
        1002: "oneRenewalEveryMinute", 1003: "oneRenewalEveryThirtySeconds",
        1004: "oneRenewalEveryTenSeconds", 1005: "oneRenewalEveryTwoSeconds",
    ]

    /// Reads a time rate by name or raw value: the case name in any letter case
    /// (`monthlyRenewalEveryThirtySeconds`, `MONTHLYRENEWALEVERYTHIRTYSECONDS`), in kebab or
    /// snake case (`monthly-renewal-every-thirty-seconds`), or the raw value as text (`15`).
    /// - Parameter name: the text, from a command-line flag or a configuration.
    /// - Returns: `nil` for a name or number Xcode does not define.
    public init?(name: String) {
        let text = name.trimmingCharacters(in: .whitespaces)
        if let number = Int(text) {
            self.init(rawValue: number)
            return
        }
        let folded = String(text.lowercased().filter { $0 != "-" && $0 != "_" })
        guard !folded.isEmpty,
            let match = Self.names.first(where: { $0.value.lowercased() == folded })
        else { return nil }
        self.init(match.key)
    }

    /// The case name, as in Xcode: `monthlyRenewalEveryThirtySeconds`.
    public var name: String { Self.names[rawValue] ?? String(rawValue) }

    /// The case name.
    public var description: String { name }

    /// Whether Apple has deprecated this rate (the `…IsOneDay` rates, raw values 1–6).
    public var isDeprecated: Bool { (1...6).contains(rawValue) }

    // MARK: - Renewal intervals

    /// How long one renewal period of `period` lasts in real time under this rate, or `nil`
    /// for ``realTime`` (use ``SubscriptionPeriod/advance(_:times:)``).
    ///
    /// - The `monthlyRenewalEvery…` rates follow Apple's tables: a week lasts the weekly time
    ///   and a month the monthly time, and longer periods are whole multiples of them
    ///   (bimonthly 2×, quarterly 3×, semiannually 6×, annually 12× the monthly time), exactly
    ///   as the tables list. For `monthlyRenewalEveryThirtySeconds`: weekly 10 s, monthly 30 s,
    ///   bimonthly 1 min, quarterly 1 min 30 s, semiannually 3 min, annually 6 min.
    ///   Apple lists no day periods; here a period of *n* days lasts *n*/7 of the weekly time
    ///   (our rule, used for offers such as a 3-day free trial).
    /// - The `oneRenewalEvery…` rates renew every period, whatever its length, at their interval.
    /// - The deprecated `…IsOneDay` rates have no table; here one day lasts the rate's day
    ///   (one hour, …, one second), a week 7 days, a month 30 days and a year 365 days (our rule).
    /// - Parameter period: the subscription's (or the offer's) period.
    /// - Returns: the real-time interval, or `nil` under ``realTime``.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public func renewalInterval(for period: SubscriptionPeriod) -> Duration? {
        if let fixed = fixedInterval { return fixed }
        if let (weekly, monthly) = monthlyTable {
            switch period.unit {
            case .day: return weekly * period.value / 7
            case .week: return weekly * period.value
            case .month: return monthly * period.value
            case .year: return monthly * (12 * period.value)
            }
        }
        if let day = deprecatedDay {
            return day * Self.days(in: period)
        }
        return nil
    }

    /// How long the billing grace period and the billing retry period last in real time under
    /// this rate, for a subscription of `period`, or `nil` for ``realTime``: then they are
    /// calendar days, 6 days of grace for weekly subscriptions and 16 for all others, and 60
    /// days of billing retry (``realTimeGraceDays(for:)``, ``realTimeBillingRetryDays``).
    ///
    /// "Weekly" is a period shorter than a month (unit `W` or `D`), the only such period the
    /// App Store sells being one week.
    ///
    /// - The `monthlyRenewalEvery…` rates use Apple's tables as printed:
    ///
    ///   | rate | grace, weekly | grace, others | billing retry |
    ///   |---|---|---|---|
    ///   | `monthlyRenewalEveryHour` | 12 min 51 s | 30 min | 2 h |
    ///   | `monthlyRenewalEveryThirtyMinutes` | 8 min 34 s | 15 min | 1 h |
    ///   | `monthlyRenewalEveryFifteenMinutes` | 4 min 17 s | 7 min 30 s | 30 min |
    ///   | `monthlyRenewalEveryFiveMinutes` | 2 min 34 s | 2 min 30 s | 10 min |
    ///   | `monthlyRenewalEveryThirtySeconds` | 9 s | 15 s | 1 min |
    ///
    /// - The `oneRenewalEvery…` rates, from Apple's tables: grace lasts one interval for every
    ///   period, billing retry two (`oneRenewalEveryTwoSeconds`: 2 s and 4 s).
    /// - The deprecated `…IsOneDay` rates have no table; here the real-time days are scaled by
    ///   the rate's day: 6 or 16 days of grace, 60 days of retry (our rule).
    /// - Parameter period: the subscription's period.
    /// - Returns: both durations, or `nil` under ``realTime``.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public func billingWindows(for period: SubscriptionPeriod) -> BillingWindows? {
        let weekly = period.unit == .day || period.unit == .week
        if let fixed = fixedInterval {
            return BillingWindows(gracePeriod: fixed, billingRetryPeriod: fixed * 2)
        }
        let table: (weeklyGrace: Duration, grace: Duration, retry: Duration)? =
            switch rawValue {
            case 10: (.seconds(12 * 60 + 51), .seconds(30 * 60), .seconds(2 * 3600))
            case 11: (.seconds(8 * 60 + 34), .seconds(15 * 60), .seconds(3600))
            case 12: (.seconds(4 * 60 + 17), .seconds(7 * 60 + 30), .seconds(30 * 60))
            case 13: (.seconds(2 * 60 + 34), .seconds(2 * 60 + 30), .seconds(10 * 60))
            case 15: (.seconds(9), .seconds(15), .seconds(60))
            default: nil
            }
        if let table {
            return BillingWindows(gracePeriod: weekly ? table.weeklyGrace : table.grace, billingRetryPeriod: table.retry)
        }
        if let day = deprecatedDay {
            return BillingWindows(gracePeriod: day * Self.realTimeGraceDays(for: period), billingRetryPeriod: day * Self.realTimeBillingRetryDays)
        }
        return nil
    }

    /// The billing grace period in real time, in calendar days: 6 for a weekly subscription
    /// (a period shorter than a month), 16 otherwise (Apple's `realTime` table).
    /// - Parameter period: the subscription's period.
    /// - Returns: the number of days.
    public static func realTimeGraceDays(for period: SubscriptionPeriod) -> Int {
        period.unit == .day || period.unit == .week ? 6 : 16
    }

    /// The billing retry period in real time, in calendar days (Apple's `realTime` table).
    public static let realTimeBillingRetryDays = 60

    /// The grace period and the billing retry period of a failed renewal, in real time.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public struct BillingWindows: Sendable, Hashable {
        /// How long the subscriber keeps access after a failed renewal, when grace is enabled.
        public var gracePeriod: Duration
        /// How long the store keeps retrying the payment after a failed renewal.
        public var billingRetryPeriod: Duration

        /// - Parameters:
        ///   - gracePeriod: the grace period.
        ///   - billingRetryPeriod: the billing retry period.
        public init(gracePeriod: Duration, billingRetryPeriod: Duration) {
            self.gracePeriod = gracePeriod
            self.billingRetryPeriod = billingRetryPeriod
        }
    }

    /// The interval of an `oneRenewalEvery…` rate.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    private var fixedInterval: Duration? {
        switch rawValue {
        case 1000: .seconds(15 * 60)
        case 1001: .seconds(5 * 60)
        case 1002: .seconds(60)
        case 1003: .seconds(30)
        case 1004: .seconds(10)
        case 1005: .seconds(2)
        default: nil
        }
    }

    /// The weekly and monthly renewal times of a `monthlyRenewalEvery…` rate.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    private var monthlyTable: (weekly: Duration, monthly: Duration)? {
        switch rawValue {
        case 10: (.seconds(15 * 60), .seconds(3600))
        case 11: (.seconds(10 * 60), .seconds(30 * 60))
        case 12: (.seconds(5 * 60), .seconds(15 * 60))
        case 13: (.seconds(3 * 60), .seconds(5 * 60))
        case 15: (.seconds(10), .seconds(30))
        default: nil
        }
    }

    /// The real-time length of one store day under a deprecated `…IsOneDay` rate.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    private var deprecatedDay: Duration? {
        switch rawValue {
        case 1: .seconds(3600)
        case 2: .seconds(30 * 60)
        case 3: .seconds(5 * 60)
        case 4: .seconds(60)
        case 5: .seconds(30)
        case 6: .seconds(1)
        default: nil
        }
    }

    /// Days in a period under the deprecated rates' rule: week 7, month 30, year 365.
    private static func days(in period: SubscriptionPeriod) -> Int {
        switch period.unit {
        case .day: period.value
        case .week: 7 * period.value
        case .month: 30 * period.value
        case .year: 365 * period.value
        }
    }
}
