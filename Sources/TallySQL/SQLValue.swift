/// A value bound to or read from SQL. Only integers and text cross the seam, so the same
/// statements run on SQLite and PostgreSQL, on the server and on the device: money and counts
/// are `BIGINT`, times and durations are milliseconds, flags are 0 or 1, JSON is text.
public enum SQLValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit integer.
    case int(Int64)
    /// Text.
    case text(String)
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    /// An integer literal as ``SQLValue/int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A string literal as ``SQLValue/text(_:)``.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `nil` as ``SQLValue/null``.
    public init(nilLiteral: ()) { self = .null }

    /// A text value, or null.
    public static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    /// An integer value, or null.
    public static func optional(_ int: Int64?) -> SQLValue { int.map(SQLValue.int) ?? .null }
}
