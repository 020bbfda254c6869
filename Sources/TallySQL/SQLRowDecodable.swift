/// A record read from one result row, decoded in one place: its initializer reads each column
/// through a constant (``SQLColumn``), so a misspelt name or a wrong type fails there, and the
/// error names the record and the column.
///
/// ```swift
/// struct Balance: SQLRowDecodable {
///     enum Columns {
///         static let currency = SQLColumn("currency")
///         static let available = SQLColumn("available")
///     }
///     let currency: String
///     let available: Int64
///
///     init(row: SQLRow) throws(SQLDatabaseError) {
///         currency = try row.text(Columns.currency)
///         available = try row.int(Columns.available)
///     }
/// }
///
/// let balances = try await executor.fetchAll(Balance.self, "SELECT * FROM positions ORDER BY currency")
/// ```
public protocol SQLRowDecodable {
    /// Reads the record from a row.
    /// - Parameter row: one result row.
    /// - Throws: ``SQLDatabaseError`` (`.decoding`) naming the column that is missing or has
    ///   another type.
    init(row: SQLRow) throws(SQLDatabaseError)
}

extension SQLRow {
    /// Decodes the row as `type`.
    /// - Parameter type: the record type.
    /// - Returns: the record.
    /// - Throws: ``SQLDatabaseError`` from the record's initializer, its message prefixed with
    ///   the record's type name.
    @inlinable
    public func decode<Record: SQLRowDecodable>(_ type: Record.Type = Record.self) throws(SQLDatabaseError) -> Record {
        do {
            return try Record(row: self)
        } catch {
            throw SQLDatabaseError(error.kind, "\(String(reflecting: Record.self)): \(error.message)")
        }
    }
}

extension SQLExecutor {
    /// Runs a statement and decodes each row as `type`.
    /// - Parameters:
    ///   - type: the record type.
    ///   - sql: the statement.
    /// - Returns: the records, in the rows' order.
    /// - Throws: ``SQLDatabaseError`` from the database or from decoding (naming the record and column).
    @inlinable
    public func fetchAll<Record: SQLRowDecodable>(_ type: Record.Type, _ sql: SQL) async throws(SQLDatabaseError) -> [Record] {
        var records: [Record] = []
        for row in try await query(sql) {
            records.append(try row.decode(Record.self))
        }
        return records
    }

    /// Runs a statement and decodes its first row as `type`.
    /// - Parameters:
    ///   - type: the record type.
    ///   - sql: the statement (add `LIMIT 1` when more rows may match).
    /// - Returns: the first row's record, or nil when there is no row.
    /// - Throws: ``SQLDatabaseError`` from the database or from decoding (naming the record and column).
    @inlinable
    public func fetchOne<Record: SQLRowDecodable>(_ type: Record.Type, _ sql: SQL) async throws(SQLDatabaseError) -> Record? {
        guard let row = try await query(sql).first else { return nil }
        return try row.decode(Record.self)
    }
}
