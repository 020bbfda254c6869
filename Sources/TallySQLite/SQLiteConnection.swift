#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// A value SQLite stores.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The integer, or nil.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number (a real, or an integer as a real), or nil.
    public var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The text, or nil.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

/// One row of a result, by column name.
public struct SQLiteRow: Sendable {
    /// The column names, in order.
    public let columns: [String]
    /// The values, in column order.
    public let values: [SQLiteValue]

    /// The value of a column, or `.null` when there is no such column.
    public subscript(_ name: String) -> SQLiteValue {
        guard let index = columns.firstIndex(of: name) else { return .null }
        return values[index]
    }
}

/// A failure reported by SQLite, with its extended result code.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code.
    public let code: Int32
    /// SQLite's message.
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }

    /// A UNIQUE or PRIMARY KEY constraint failed.
    public var isUniqueViolation: Bool { code == 2067 || code == 1555 }  // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
    /// Any constraint failed (CHECK, NOT NULL, UNIQUE, FOREIGN KEY, a trigger's RAISE).
    public var isConstraintViolation: Bool { code & 0xFF == 19 }  // SQLITE_CONSTRAINT
    /// The database was busy or locked.
    public var isBusy: Bool { code & 0xFF == 5 || code & 0xFF == 6 }
}

/// One connection to an SQLite database, with prepared statements cached by SQL text.
///
/// Not thread-safe by itself: it is `Sendable` so that an owner can hand it from thread to
/// thread, and the owner makes sure only one uses it at a time.
public final class SQLiteConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (or creates) the database at `path`; `":memory:"` for an in-memory one.
    /// - Throws: ``SQLiteError`` when it cannot be opened.
    public init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        let flags =
            readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, handle != nil else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw SQLiteError(code: result, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without parameters or results (schema, pragmas, BEGIN/COMMIT).
    /// - Throws: ``SQLiteError``.
    public func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message)
        }
    }

    /// Runs a statement and returns its rows.
    /// - Throws: ``SQLiteError``.
    @discardableResult
    public func query(_ sql: String, _ binds: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(binds, to: statement)
        var rows: [SQLiteRow] = []
        var columns: [String]?
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw currentError() }
            let count = Int(sqlite3_column_count(statement))
            if columns == nil {
                columns = (0..<count).map { String(cString: sqlite3_column_name(statement, Int32($0))) }
            }
            var values: [SQLiteValue] = []
            values.reserveCapacity(count)
            for index in 0..<Int32(count) {
                switch sqlite3_column_type(statement, index) {
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, index)))
                case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement, index)))
                case SQLITE_TEXT: values.append(.text(String(cString: sqlite3_column_text(statement, index))))
                case SQLITE_BLOB:
                    let length = Int(sqlite3_column_bytes(statement, index))
                    if let pointer = sqlite3_column_blob(statement, index), length > 0 {
                        values.append(.blob(Array(UnsafeRawBufferPointer(start: pointer, count: length))))
                    } else {
                        values.append(.blob([]))
                    }
                default: values.append(.null)
                }
            }
            rows.append(SQLiteRow(columns: columns!, values: values))
        }
        return rows
    }

    /// How many rows the last statement changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Copies this connection's main database into a new database file at `path`, as one
    /// consistent snapshot, then sets the copy's journal mode to DELETE so that it is one
    /// self-contained file.
    ///
    /// SQLite's online backup API copies every page in a single step, inside one read
    /// transaction: writers on other connections go on committing (in WAL mode) and cannot make
    /// it start over, as they would a backup taken a few pages at a time.
    /// - Throws: ``SQLiteError`` when the copy fails; `path` may then hold a partial file.
    public func backup(to path: String) throws(SQLiteError) {
        let destination = try SQLiteConnection(path: path)
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.currentError()
        }
        var step = sqlite3_backup_step(backup, -1)
        // Busy only while another connection recovers the WAL or holds the database exclusively:
        // wait for it about as long as the busy timeout would.
        var attempts = 0
        while step == SQLITE_BUSY || step == SQLITE_LOCKED, attempts < 50 {
            sqlite3_sleep(100)
            attempts += 1
            step = sqlite3_backup_step(backup, -1)
        }
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE else {
            throw SQLiteError(code: step, message: String(cString: sqlite3_errstr(step)))
        }
        guard finish == SQLITE_OK else { throw destination.currentError() }
        try destination.execute("PRAGMA journal_mode=DELETE")
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw currentError()
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ binds: [SQLiteValue], to statement: OpaquePointer) throws(SQLiteError) {
        // SQLITE_TRANSIENT: SQLite copies text and blobs before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32 =
                switch value {
                case .null: sqlite3_bind_null(statement, index)
                case .integer(let integer): sqlite3_bind_int64(statement, index, integer)
                case .real(let real): sqlite3_bind_double(statement, index, real)
                case .text(let text): sqlite3_bind_text(statement, index, text, -1, transient)
                case .blob(let bytes): bytes.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
                }
            guard result == SQLITE_OK else { throw currentError() }
        }
    }

    private func currentError() -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }
}
