import Logging
import PostgresNIO
import TallySQL

/// Statements on one leased connection inside one transaction.
struct PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs a statement and collects its rows and command tag.
    @discardableResult
    func run(_ sql: SQL) async throws(SQLDatabaseError) -> PostgresQueryResult {
        let query = PostgresDatabase.query(sql)
        do {
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
            return try await result.get()
        } catch {
            throw PostgresDatabase.convert(error)
        }
    }

    func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
        var rows: [SQLRow] = []
        for row in try await run(sql).rows {
            rows.append(try PostgresDatabase.row(row))
        }
        return rows
    }

    func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
        try await run(sql).metadata.rows ?? 0
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
