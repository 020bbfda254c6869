import Foundation
import TallySQL

/// A database that counts the statements run through it, reads and writes alike: a test pins
/// how many one operation takes, so that the number cannot grow unnoticed.
final class CountingDatabase: SQLDatabase, @unchecked Sendable {
    private let base: any SQLDatabase
    private let lock = NSLock()
    private var statements: [String] = []

    init(_ base: any SQLDatabase) { self.base = base }

    /// The statements `work` ran, in order (their first line, for a failing expectation's message).
    func statements(of work: () async throws -> Void) async throws -> [String] {
        lock.withLock { statements = [] }
        try await work()
        return lock.withLock { statements }
    }

    fileprivate func note(_ sql: String) {
        let line = sql.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        lock.withLock { statements.append(line) }
    }

    var dialect: SQLDialect { base.dialect }

    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.write { executor in try await work(Counting(base: executor, database: self)) }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.read { executor in try await work(Counting(base: executor, database: self)) }
    }

    func migrate(_ migrations: [Migration]) async throws { try await base.migrate(migrations) }

    func close() async { await base.close() }

    private struct Counting: SQLExecutor {
        let base: any SQLExecutor
        let database: CountingDatabase

        func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
            database.note(sql.description)
            return try await base.query(sql)
        }

        @discardableResult
        func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
            database.note(sql.description)
            return try await base.execute(sql)
        }

        func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
            database.note(sql)
            return try await base.query(sql, binds)
        }

        @discardableResult
        func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
            database.note(sql)
            return try await base.execute(sql, binds)
        }
    }
}
