import Logging
import PostgresNIO
import TallySQL

/// Statements on one leased connection inside one transaction.
struct PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs a statement and collects its rows and command tag.
    @discardableResult
    func run(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> PostgresQueryResult {
        let query = try PostgresDatabase.query(sql, binds)
        do {
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
            return try await result.get()
        } catch {
            throw PostgresDatabase.convert(error)
        }
    }

    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        var rows: [SQLRow] = []
        for row in try await run(sql, binds).rows {
            rows.append(try PostgresDatabase.row(row))
        }
        return rows
    }

    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
        try await run(sql, binds).metadata.rows ?? 0
    }
}
