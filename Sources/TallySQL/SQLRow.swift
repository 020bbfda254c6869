/// One result row, by column name.
///
/// Read it through column constants (``SQLColumn``), best inside a record's
/// ``SQLRowDecodable/init(row:)``, so that each name is written once:
///
/// ```swift
/// enum Columns {
///     static let amount = SQLColumn("amount")
///     static let reference = SQLColumn("reference")
/// }
/// let row = try await executor.query("SELECT amount, reference FROM spends WHERE id = \(id)").first
/// let amount = try row?.int(Columns.amount)             // throws when null or not an integer
/// let reference = try row?.optionalText(Columns.reference) // nil when null
/// ```
public struct SQLRow: Sendable {
    /// Values by lower-case column name.
    public let values: [String: SQLValue]

    /// Creates a row.
    /// - Parameter values: values by lower-case column name.
    public init(values: [String: SQLValue]) { self.values = values }

    /// The value in a column, or nil when the row has no such column.
    /// - Parameter column: the column.
    public subscript(column: SQLColumn) -> SQLValue? { values[column.key] }

    // MARK: - By column constant

    /// The integer in a column.
    /// - Parameter column: the column.
    /// - Returns: the integer.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column when it is missing, null
    ///   or not an integer.
    public func int(_ column: SQLColumn) throws(SQLDatabaseError) -> Int64 {
        guard case .int(let value)? = values[column.key] else { throw mismatch(column.key, expected: "an integer") }
        return value
    }

    /// The text in a column.
    /// - Parameter column: the column.
    /// - Returns: the text.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column when it is missing, null
    ///   or not text.
    public func text(_ column: SQLColumn) throws(SQLDatabaseError) -> String {
        guard case .text(let value)? = values[column.key] else { throw mismatch(column.key, expected: "text") }
        return value
    }

    /// A flag in a column: 0 is false, any other integer true.
    /// - Parameter column: the column.
    /// - Returns: the flag.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column when it is missing, null
    ///   or not an integer.
    public func bool(_ column: SQLColumn) throws(SQLDatabaseError) -> Bool {
        try int(column) != 0
    }

    /// The integer in a column, or nil when it is null.
    /// - Parameter column: the column.
    /// - Returns: the integer, or nil.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column when it is missing or
    ///   holds something else than an integer.
    public func optionalInt(_ column: SQLColumn) throws(SQLDatabaseError) -> Int64? {
        switch values[column.key] {
        case .int(let value)?: return value
        case .null?: return nil
        default: throw mismatch(column.key, expected: "an integer or null")
        }
    }

    /// The text in a column, or nil when it is null.
    /// - Parameter column: the column.
    /// - Returns: the text, or nil.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column when it is missing or
    ///   holds something else than text.
    public func optionalText(_ column: SQLColumn) throws(SQLDatabaseError) -> String? {
        switch values[column.key] {
        case .text(let value)?: return value
        case .null?: return nil
        default: throw mismatch(column.key, expected: "text or null")
        }
    }

    /// A code of a closed set in a text column: `try row.code(LedgerBucket.self, Columns.bucket)`.
    /// - Parameters:
    ///   - type: the code's type.
    ///   - column: the column.
    /// - Returns: the code with the column's raw string.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column when it is missing, null,
    ///   not text, or a string the type does not take.
    public func code<Code: RawRepresentable>(_ type: Code.Type, _ column: SQLColumn) throws(SQLDatabaseError) -> Code
    where Code.RawValue == String {
        let raw = try text(column)
        guard let code = Code(rawValue: raw) else {
            throw SQLDatabaseError(.decoding, "column \(column.key) holds '\(raw)', not a \(Code.self)")
        }
        return code
    }

    /// A code of a closed set in a text column, or nil when it is null.
    /// - Parameters:
    ///   - type: the code's type.
    ///   - column: the column.
    /// - Returns: the code, or nil.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column when it is missing, not
    ///   text, or a string the type does not take.
    public func optionalCode<Code: RawRepresentable>(_ type: Code.Type, _ column: SQLColumn) throws(SQLDatabaseError) -> Code?
    where Code.RawValue == String {
        guard values[column.key] != .null else { return nil }
        return try code(type, column)
    }

    private func mismatch(_ key: String, expected: String) -> SQLDatabaseError {
        let found =
            switch values[key] {
            case nil: "no such column in the row"
            case .null?: "null"
            case .int?: "an integer"
            case .text?: "text"
            }
        return SQLDatabaseError(.decoding, "column \(key) is not \(expected): \(found)")
    }
}
