import Foundation
import Hummingbird
import TallyCore

/// The filters of a console list as given in its address: kept as text to fill the form
/// again and to build the next page's and the export's addresses, and checked into a query.
protocol ConsoleFilters {
    /// The parameters this list reads.
    static var names: [String] { get }
    /// The given, non-empty ones.
    var fields: [String: String] { get }
}

extension ConsoleFilters {
    static func read(_ parameters: [String: String]) -> [String: String] {
        var fields: [String: String] = [:]
        for name in names {
            if let value = ConsoleQuery.value(parameters, name) { fields[name] = value.trimmingCharacters(in: .whitespaces) }
        }
        return fields
    }

    /// The page size: `limit`, 50 when absent; a wrong one is refused by ``checkedLimit()``.
    var limit: Int { fields["limit"].flatMap(Int.init).map { min(max($0, 1), 200) } ?? 50 }

    func checkedLimit() throws -> Int {
        guard let text = fields["limit"] else { return 50 }
        guard let limit = Int(text), (1...200).contains(limit) else { throw TallyAPIError(.invalidRequest, "limit must be 1 to 200") }
        return limit
    }

    func queryString(excluding: Set<String> = [], replacing: [String: String] = [:]) -> String {
        ConsoleQuery.string(fields.filter { !excluding.contains($0.key) }.merging(replacing) { $1 })
    }

    /// A day filter: `from` is the start of its day, `to` the end of its day (UTC).
    func day(_ name: String, endOfDay: Bool) throws -> Date? {
        guard let text = fields[name] else { return nil }
        guard let day = ConsoleFormat.parseDay(text) else { throw TallyAPIError(.invalidRequest, "\(name) must be a date written YYYY-MM-DD") }
        return endOfDay ? day.addingTimeInterval(86_400) : day
    }

    func text(_ name: String, maximum: Int = 200) throws -> String? {
        guard let value = fields[name] else { return nil }
        guard value.count <= maximum else { throw TallyAPIError(.invalidRequest, "\(name) must be at most \(maximum) characters") }
        return value
    }
}

/// `/console/transactions`: kind, status, environment, product, group (subscription group), currency, from, to (received),
/// purchased_from, purchased_to, revoked_from, revoked_to (UTC days, both included), user, q,
/// after, limit.
struct TransactionFilters: ConsoleFilters {
    static let names = [
        "kind", "status", "environment", "product", "group", "currency", "from", "to", "purchased_from", "purchased_to", "revoked_from", "revoked_to", "user",
        "q", "after", "limit",
    ]
    let fields: [String: String]

    init(_ parameters: [String: String]) { fields = Self.read(parameters) }

    func query(_ language: ConsoleText.Language) throws -> AdminTransactionQuery {
        if let kind = fields["kind"], ProductKind(known: kind) == nil { throw TallyAPIError(.invalidRequest, "kind must be \(AdminController.productTypes)") }
        if let status = fields["status"], !["granted", "revoked", "refunded", "unbound"].contains(status) {
            throw TallyAPIError(.invalidRequest, "status must be granted, revoked, refunded or unbound")
        }
        let cursor = try fields["after"].map { text in
            guard let cursor = AdminCursor(text: text) else { throw TallyAPIError(.invalidRequest, "after is not a position of this list") }
            return cursor
        }
        return AdminTransactionQuery(
            type: fields["kind"], status: fields["status"], environment: try text("environment", maximum: 64), userID: try text("user", maximum: 128),
            from: try day("from", endOfDay: false), to: try day("to", endOfDay: true), productID: try text("product"), text: try text("q"),
            limit: try checkedLimit(), cursor: cursor, purchasedFrom: try day("purchased_from", endOfDay: false),
            purchasedTo: try day("purchased_to", endOfDay: true), revokedFrom: try day("revoked_from", endOfDay: false),
            revokedTo: try day("revoked_to", endOfDay: true), currency: try text("currency", maximum: 64),
            subscriptionGroup: try text("group", maximum: 128))
    }
}

/// `/console/ledger`: currency, kind, user, from, to, before, limit.
struct LedgerFilters: ConsoleFilters {
    static let names = ["currency", "kind", "user", "from", "to", "before", "limit"]
    let fields: [String: String]

    init(_ parameters: [String: String]) { fields = Self.read(parameters) }

    func query() throws -> ConsoleLedgerQuery {
        let before = try fields["before"].map { text in
            guard let position = ConsoleLedgerQuery.Position(text: text) else { throw TallyAPIError(.invalidRequest, "before is not a position of this list") }
            return position
        }
        return ConsoleLedgerQuery(
            currency: try text("currency", maximum: 64), kind: try text("kind", maximum: 64), userID: try text("user", maximum: 128),
            from: try day("from", endOfDay: false), to: try day("to", endOfDay: true), limit: try checkedLimit(), before: before)
    }
}

/// `/console/metrics` and its exports: window (7d, 30d, 90d or 365d, through today), environment,
/// product, group (a subscription group).
struct MetricsFilters: ConsoleFilters {
    static let names = ["window", "environment", "product", "group"]
    static let windows = [("7d", 7), ("30d", 30), ("90d", 90), ("365d", 365)]
    let fields: [String: String]

    init(_ parameters: [String: String]) { fields = Self.read(parameters) }

    /// The chosen window, 30 days when none is.
    var window: String { fields["window"] ?? "30d" }

    /// The report's query: the window's days through the UTC day of `now`.
    func query(now: Date) throws -> MetricsQuery {
        guard let days = Self.windows.first(where: { $0.0 == window })?.1 else {
            throw TallyAPIError(.invalidRequest, "window must be 7d, 30d, 90d or 365d")
        }
        let from = ConsoleFormat.day(MetricsQuery.day(of: now).addingTimeInterval(Double(1 - days) * 86_400))
        let fields = fields
        return try MetricsQuery(
            reading: { name in name == "from" ? from : name == "through" ? nil : fields[name] }, today: now, productName: "product",
            groupName: "group")
    }
}
