#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// One connection to an SQLite database, with prepared statements cached by SQL text.
///
/// Values cross it as ``SQLValue`` and rows as ``SQLRow``, as on every Tally database: a
/// stored real that is a whole number reads as an integer, any other as its text; a blob reads
/// as UTF-8 text. Failures are ``SQLDatabaseError``s classified from SQLite's extended result
/// code (a UNIQUE or PRIMARY KEY violation, another constraint, busy), with SQLite's message.
///
/// It is the ``SQLExecutor`` of the transactions run on it (``SQLiteDatabase`` runs its
/// transactions on its connections this way, `tally check` an audit on one read transaction).
///
/// Not thread-safe by itself: it is `Sendable` so that an owner can hand it from thread to
/// thread, and the owner makes sure only one uses it at a time (``SQLiteDatabase`` does).
public final class SQLiteConnection: SQLExecutor, @unchecked Sendable {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (or creates) the database at `path`; `":memory:"` for an in-memory one.
    /// - Parameters:
    ///   - path: the file.
    ///   - readOnly: opens it read-only (the file must exist).
    /// - Throws: ``SQLDatabaseError`` (`.unavailable`) when it cannot be opened.
    public init(path: String, readOnly: Bool = false) throws(SQLDatabaseError) {
        let flags =
            readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, handle != nil else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw SQLDatabaseError(.unavailable, "SQLite error \(result): \(message)")
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without parameters or results (schema, pragmas, BEGIN/COMMIT).
    ///
    /// The text runs as it is: write a constant here, never text with input in it. The label
    /// keeps an interpolated literal from landing here: `execute("… \(value)")` is
    /// ``execute(_:)-(SQL)``, which binds the value.
    /// - Parameter sql: the statements, separated by semicolons.
    /// - Throws: ``SQLDatabaseError``.
    public func execute(script sql: String) throws(SQLDatabaseError) {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw Self.error(code: sqlite3_extended_errcode(handle), message: message)
        }
    }

    /// Runs one statement and returns its rows.
    /// - Parameter sql: one statement, its values bound where they are interpolated; anything
    ///   after its end is refused rather than silently left out.
    /// - Returns: the rows, by lower-case column name.
    /// - Throws: ``SQLDatabaseError``.
    @discardableResult
    public func query(_ sql: SQL) throws(SQLDatabaseError) -> [SQLRow] {
        let rendered = sql.rendered(for: .sqlite)
        return try run(rendered.text, rendered.binds)
    }

    /// Runs one statement and returns how many rows it changed.
    /// - Parameter sql: one statement, its values bound where they are interpolated.
    /// - Returns: the number of rows the statement inserted, updated or deleted.
    /// - Throws: ``SQLDatabaseError``.
    @discardableResult
    public func execute(_ sql: SQL) throws(SQLDatabaseError) -> Int {
        try query(sql)
        return changes
    }

    /// Runs one statement written with `?` placeholders and returns its rows (the earlier form;
    /// prefer ``query(_:)-(SQL)``). SQLite takes `?` as it is: the text goes to it unscanned.
    /// - Parameters:
    ///   - sql: one statement with `?` placeholders.
    ///   - binds: the placeholders' values, in order.
    /// - Returns: the rows, by lower-case column name.
    /// - Throws: ``SQLDatabaseError``.
    @discardableResult
    public func query(_ sql: String, _ binds: [SQLValue]) throws(SQLDatabaseError) -> [SQLRow] {
        try run(sql, binds)
    }

    /// Runs one statement written with `?` placeholders and returns how many rows it changed
    /// (the earlier form; prefer ``execute(_:)-(SQL)``).
    /// - Parameters:
    ///   - sql: one statement with `?` placeholders.
    ///   - binds: the placeholders' values, in order.
    /// - Returns: the number of rows the statement inserted, updated or deleted.
    /// - Throws: ``SQLDatabaseError``.
    @discardableResult
    public func execute(_ sql: String, _ binds: [SQLValue]) throws(SQLDatabaseError) -> Int {
        _ = try run(sql, binds)
        return changes
    }

    private func run(_ sql: String, _ binds: [SQLValue]) throws(SQLDatabaseError) -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(binds, to: statement)
        var rows: [SQLRow] = []
        var columns: [String]?
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw currentError() }
            let count = Int(sqlite3_column_count(statement))
            // Every row of a result has the same columns: lower-case their names once.
            let names = columns ?? (0..<count).map { String(cString: sqlite3_column_name(statement, Int32($0))).lowercased() }
            columns = names
            var values = [String: SQLValue](minimumCapacity: count)
            for index in 0..<Int32(count) {
                values[names[Int(index)]] = Self.value(statement, index)
            }
            rows.append(SQLRow(values: values))
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
    /// - Parameter path: the new file.
    /// - Throws: ``SQLDatabaseError`` when the copy fails; `path` may then hold a partial file.
    public func backup(to path: String) throws(SQLDatabaseError) {
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
            throw Self.error(code: step, message: String(cString: sqlite3_errstr(step)))
        }
        guard finish == SQLITE_OK else { throw destination.currentError() }
        try destination.execute(script: "PRAGMA journal_mode=DELETE")
    }

    /// Only integers and text cross the seam: see the type's overview.
    private static func value(_ statement: OpaquePointer, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .int(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            // Amounts are integers; a real that is not a whole Int64 is never truncated into one.
            let real = sqlite3_column_double(statement, index)
            return Int64(exactly: real).map(SQLValue.int) ?? .text(String(real))
        case SQLITE_TEXT:
            return .text(String(cString: sqlite3_column_text(statement, index)))
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(statement, index))
            guard let pointer = sqlite3_column_blob(statement, index), length > 0 else { return .text("") }
            return .text(String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self))
        default:
            return .null
        }
    }

    private func prepared(_ sql: String) throws(SQLDatabaseError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        var rest = ""
        let result = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let result = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            if let tail { rest = String(cString: tail) }
            return result
        }
        guard result == SQLITE_OK, let statement else {
            if result == SQLITE_OK { throw SQLDatabaseError(.other, "no statement in: \(sql)") }
            throw currentError()
        }
        // A second statement would never run: refuse it rather than leave it out unnoticed.
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            sqlite3_finalize(statement)
            throw SQLDatabaseError(.other, "one statement at a time; not run: \(rest.prefix(80))")
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ binds: [SQLValue], to statement: OpaquePointer) throws(SQLDatabaseError) {
        // SQLITE_TRANSIENT: SQLite copies text before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32 =
                switch value {
                case .null: sqlite3_bind_null(statement, index)
                case .int(let integer): sqlite3_bind_int64(statement, index, integer)
                case .text(let text): sqlite3_bind_text(statement, index, text, -1, transient)
                }
            guard result == SQLITE_OK else { throw currentError() }
        }
    }

    private func currentError() -> SQLDatabaseError {
        Self.error(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Classifies SQLite's extended result code.
    static func error(code: Int32, message: String) -> SQLDatabaseError {
        switch code {
        case 2067, 1555: SQLDatabaseError(.uniqueViolation, message)  // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
        case _ where code & 0xFF == 19: SQLDatabaseError(.constraintViolation, message)  // SQLITE_CONSTRAINT: CHECK, NOT NULL, FOREIGN KEY, RAISE
        case _ where code & 0xFF == 5 || code & 0xFF == 6: SQLDatabaseError(.retryable, message)  // SQLITE_BUSY, SQLITE_LOCKED
        // SQLITE_CANTOPEN, SQLITE_NOTADB: no database there to use.
        case _ where code & 0xFF == 14 || code & 0xFF == 26: SQLDatabaseError(.unavailable, "SQLite error \(code): \(message)")
        default: SQLDatabaseError(.other, "SQLite error \(code): \(message)")
        }
    }
}
