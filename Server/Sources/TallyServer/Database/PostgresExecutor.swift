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
        // Named as `… RETURNING 1` (see PostgresStatements): a row per row changed.
        return try await named(statement, rendered.binds).count
    }

    /// Runs `statement` by name with `binds`; a failure that is not about the data retires
    /// the name, so that a failed preparation is not kept for it.
    private func named(_ statement: PostgresStatements.Statement, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        do {
            return try await NamedQuery.$current.withValue(statement) {
                var rows: [SQLRow] = []
                for try await row in try await connection.execute(NamedQuery(bindings: PostgresDatabase.bindings(binds)), logger: logger) {
                    rows.append(row)
                }
                return rows
            }
        } catch {
            let converted = PostgresDatabase.convert(error)
            switch converted.kind {
            case .uniqueViolation, .constraintViolation, .retryable: break
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
