import Logging
import PostgresNIO
import TallySQL

/// Statements on one leased connection inside one transaction.
struct PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    let logger: Logger
    /// Names for frequent statements; nil runs every statement unnamed (migrations do).
    var statements: PostgresStatements?

    /// Runs a statement unnamed and collects its rows and command tag.
    @discardableResult
    func run(_ sql: SQL) async throws(SQLDatabaseError) -> PostgresQueryResult {
        do {
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(PostgresDatabase.query(sql), logger: logger)
            return try await result.get()
        } catch {
            throw PostgresDatabase.convert(error)
        }
    }

    func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
        let rendered = sql.rendered(for: .postgres)
        guard let statement = statements?.statement(for: rendered, counting: false) else {
            var rows: [SQLRow] = []
            for row in try await run(sql).rows {
                rows.append(try PostgresDatabase.row(row))
            }
            return rows
        }
        return try await named(statement, rendered.binds)
    }

    func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
        let rendered = sql.rendered(for: .postgres)
        guard let statement = statements?.statement(for: rendered, counting: true) else {
            return try await run(sql).metadata.rows ?? 0
        }
        // Named as `… RETURNING 1` (see PostgresStatements): a row per row changed, counted, not decoded.
        return try await named(statement) {
            var count = 0
            for try await _ in try await connection.execute(NamedCount(bindings: PostgresDatabase.bindings(rendered.binds)), logger: logger) {
                count += 1
            }
            return count
        }
    }

    /// Runs `statement` by name with `binds` and decodes its rows.
    private func named(_ statement: PostgresStatements.Statement, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        try await named(statement) {
            var rows: [SQLRow] = []
            for try await row in try await connection.execute(NamedQuery(bindings: PostgresDatabase.bindings(binds)), logger: logger) {
                rows.append(row)
            }
            return rows
        }
    }

    /// Runs `work` with `statement` bound for ``NamedQuery``. Any failure but a constraint's
    /// retires the name: postgres-nio keeps a failed preparation's error for the name on that
    /// connection, and a preparation can fail for reasons of the moment (a transaction already
    /// failed, a deadlock over a table's lock, another instance's migration); a constraint is
    /// only checked once the statement runs.
    private func named<T: Sendable>(_ statement: PostgresStatements.Statement, _ work: () async throws -> T) async throws(SQLDatabaseError) -> T {
        do {
            return try await NamedQuery.$current.withValue(statement) { try await work() }
        } catch {
            let converted = PostgresDatabase.convert(error)
            switch converted.kind {
            case .uniqueViolation, .constraintViolation: break
            default: statements?.retire(statement)
            }
            throw converted
        }
    }

    /// The earlier form: `?` placeholders numbered by ``SQL/init(positional:_:)``.
    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        try await query(try SQL(positional: sql, binds))
    }

    /// The earlier form: `?` placeholders numbered by ``SQL/init(positional:_:)``.
    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
        try await execute(try SQL(positional: sql, binds))
    }
}
