import Foundation

extension MetricsQuery {
    /// The environments a report may be of, as transactions name them.
    static let environments = ["Production", "Sandbox", "Xcode"]

    /// A query read from the parameters the API and the console take: `from` and `through` as
    /// `YYYY-MM-DD` UTC days (by default the 30 days through today), `environment`
    /// (`Production` by default), a product and a subscription group.
    /// - Parameters:
    ///   - value: a parameter by name, nil when absent.
    ///   - today: an instant of the day the default window ends on.
    ///   - productName: the name of the product's parameter, for the messages.
    ///   - groupName: the name of the subscription group's parameter, for the messages.
    /// - Throws: ``TallyAPIError`` `invalid_request` naming the parameter: a day that is not
    ///   `YYYY-MM-DD`, a window that starts after today, ends before it starts or is longer than
    ///   ``maximumDays``, an
    ///   unknown environment, a product or group that is no identifier.
    init(
        reading value: (String) -> String?, today: Date, productName: String = "product_id", groupName: String = "subscription_group"
    ) throws {
        func day(_ name: String) throws -> Date? {
            guard let text = value(name) else { return nil }
            guard let day = ConsoleFormat.parseDay(text) else { throw TallyAPIError(.invalidRequest, "\(name) must be a date written YYYY-MM-DD") }
            return day
        }
        func identifier(_ name: String) throws -> String? {
            guard let text = value(name) else { return nil }
            guard APIPattern.isIdentifier(text) else {
                throw TallyAPIError(.invalidRequest, "\(name) must be 1 to 128 characters, none of them a control character")
            }
            return text
        }
        let from = try day("from")
        let through = try day("through")
        let last = through ?? Self.day(of: today)
        let first = from ?? last.addingTimeInterval(-29 * 86_400)
        // The figures stop at today: a window that starts later has none.
        guard first <= Self.day(of: today) else { throw TallyAPIError(.invalidRequest, "from must be on or before today") }
        guard first <= last else { throw TallyAPIError(.invalidRequest, "from must be on or before through (today when through is absent)") }
        guard Self.days(from: first, through: last) <= Self.maximumDays else {
            throw TallyAPIError(.invalidRequest, "from and through must span at most \(Self.maximumDays) days")
        }
        let environment = value("environment") ?? "Production"
        guard Self.environments.contains(environment) else {
            throw TallyAPIError(.invalidRequest, "environment must be Production, Sandbox or Xcode")
        }
        self.init(
            from: first, through: last, environment: environment, productID: try identifier(productName),
            subscriptionGroup: try identifier(groupName))
    }

    /// The UTC midnight that starts the day of `date`.
    static func day(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }

    /// How many days `from` through `through` are, both included.
    static func days(from: Date, through: Date) -> Int {
        Int(((day(of: through).timeIntervalSince1970 - day(of: from).timeIntervalSince1970) / 86_400).rounded()) + 1
    }
}
