/// A column's name as a constant, used both where a statement names the column and where a
/// row is read, so that a misspelt name fails in one place.
///
/// ```swift
/// struct Lot: SQLRowDecodable {
///     enum Columns {
///         static let currency = SQLColumn("currency")
///         static let amount = SQLColumn("amount")
///     }
///     let currency: String, amount: Int64
///     init(row: SQLRow) throws(SQLDatabaseError) {
///         currency = try row.text(Columns.currency)
///         amount = try row.int(Columns.amount)
///     }
/// }
/// let lots = try await executor.fetchAll(Lot.self, "SELECT \(Lot.Columns.currency), \(Lot.Columns.amount) FROM lots")
/// ```
public struct SQLColumn: Sendable, Hashable, CustomStringConvertible {
    /// The name as written.
    public let name: String
    /// The name a row is read by: lower case, as ``SQLRow`` keys its values.
    public let key: String

    /// The name as a statement writes it: as it is when it is a plain lower-case identifier
    /// (letters, digits, `_`), so that a misspelt name is an error on both databases, else
    /// quoted (``quoted(_:)``). Decided once: a column is written into every statement that
    /// names it.
    public let sql: String

    /// A column.
    /// - Parameter name: its name, as the schema or the statement's alias writes it.
    public init(_ name: String) {
        self.name = name
        self.key = name.lowercased()
        let plain =
            !name.isEmpty && name.utf8.first.map { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } == true
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_")
            }
        self.sql = plain ? name : Self.quoted(name)
    }

    /// The name.
    public var description: String { name }

    /// `name` as a quoted identifier, `"name"`, with any `"` in it doubled: the same on SQLite
    /// and PostgreSQL.
    /// - Parameter name: the identifier.
    /// - Returns: the quoted identifier.
    public static func quoted(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
