import Foundation

/// How the console writes times, prices and CSV fields.
enum ConsoleFormat {
    /// A time in UTC to the millisecond, as ISO 8601: exact, and sortable as text.
    static func time(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true)) + "Z"
    }

    /// A day in UTC as `YYYY-MM-DD`.
    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash))
    }

    /// The start of a UTC day written `YYYY-MM-DD`; nil for anything else.
    static func parseDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return date
    }

    /// Milliunits (Apple's prices) as a decimal with at least two places: 4990 is `4.99`,
    /// 500000 is `500.00`, 1234 is `1.234`.
    static func milliunits(_ value: Int64) -> String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        if fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(magnitude / 1000).\(fraction)"
    }

    /// An amount as an operator types it: an optional `+` or `-`, then ASCII digits, nothing
    /// else (`+-5`, `5-`, `0x5` and `1e3` are refused); nil too for zero or beyond `Int64`.
    static func parseAmount(_ text: String) -> Int64? {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let magnitude = Int64(digits), magnitude != 0
        else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// `part` of `whole` as a percentage with one decimal (`42.9%`); `—` when `whole` is 0.
    static func percent(_ part: Int64, of whole: Int64) -> String {
        guard whole > 0 else { return "—" }
        let tenths = (part * 1000 + whole / 2) / whole
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// A UTC month as `YYYY-MM`, from its first day.
    static func month(_ date: Date) -> String { String(day(date).prefix(7)) }

    /// An amount with its sign when positive: `+7`, `-5`.
    static func signed(_ value: Int64) -> String { value > 0 ? "+\(value)" : String(value) }

    /// One CSV line (RFC 4180): fields with a comma, quote or line break are quoted. A text
    /// field a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or
    /// carriage return, and not a number) gets a leading `'`.
    static func csvLine(_ fields: [String?]) -> String {
        fields.map { field -> String in
            guard var text = field else { return "" }
            if let first = text.first, "=+-@\t\r".contains(first), Double(text) == nil { text = "'" + text }
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }
}
