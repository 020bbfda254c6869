/// One result row, by column name.
///
/// ```swift
/// let row = try await executor.query("SELECT amount, reference FROM spends WHERE id = ?", [.text(id)]).first
/// let amount = try row?.int("amount")          // throws when null or not an integer
/// let reference = row?.optionalText("reference") // nil when null
/// ```
public struct SQLRow: Sendable {
    /// Values by lower-case column name.
    public let values: [String: SQLValue]

    /// Creates a row.
    /// - Parameter values: values by lower-case column name.
    public init(values: [String: SQLValue]) { self.values = values }

    /// The integer in a column.
    /// - Parameter column: the column's lower-case name.
    /// - Returns: the integer.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) when it is null or not an integer.
    public func int(_ column: String) throws(SQLDatabaseError) -> Int64 {
        guard case .int(let value)? = values[column] else {
            throw SQLDatabaseError(.decoding, "column \(column) is not an integer")
        }
        return value
    }

    /// The text in a column.
    /// - Parameter column: the column's lower-case name.
    /// - Returns: the text.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) when it is null or not text.
    public func text(_ column: String) throws(SQLDatabaseError) -> String {
        guard case .text(let value)? = values[column] else {
            throw SQLDatabaseError(.decoding, "column \(column) is not text")
        }
        return value
    }

    /// The integer in a column, or nil when it is null or not an integer.
    /// - Parameter column: the column's lower-case name.
    public func optionalInt(_ column: String) -> Int64? {
        if case .int(let value)? = values[column] { return value }
        return nil
    }

    /// The text in a column, or nil when it is null or not text.
    /// - Parameter column: the column's lower-case name.
    public func optionalText(_ column: String) -> String? {
        if case .text(let value)? = values[column] { return value }
        return nil
    }
}
