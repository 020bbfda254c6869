/// A Swift value that binds as one ``SQLValue``: interpolated into an ``SQL`` literal, it
/// becomes a parameter.
///
/// Integers, text, `Bool` (as 0 or 1, the seam's flags), ``SQLValue`` itself and optionals of
/// them (nil as NULL) conform. Codes of a closed set (a raw string value, such as the
/// vocabulary's `StableCode`s) bind by their raw value without conforming.
public protocol SQLValueConvertible: Sendable {
    /// The value as it is bound.
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLValueConvertible {
    /// Itself.
    public var sqlValue: SQLValue { self }
}

extension String: SQLValueConvertible {
    /// The text.
    public var sqlValue: SQLValue { .text(self) }
}

extension Int64: SQLValueConvertible {
    /// The integer.
    public var sqlValue: SQLValue { .int(self) }
}

extension Int: SQLValueConvertible {
    /// The integer, as 64 bits.
    public var sqlValue: SQLValue { .int(Int64(self)) }
}

extension Int32: SQLValueConvertible {
    /// The integer, as 64 bits.
    public var sqlValue: SQLValue { .int(Int64(self)) }
}

extension Bool: SQLValueConvertible {
    /// 1 for true, 0 for false: flags are integers on both databases.
    public var sqlValue: SQLValue { .int(self ? 1 : 0) }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    /// The wrapped value, or NULL.
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
