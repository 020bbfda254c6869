import NIOConcurrencyHelpers
import TallySQL

/// A database that counts the statements the server runs through it while counting is on: what
/// one request costs in statements (each a round trip on PostgreSQL), as `tally bench server`
/// prints it. Off, it only forwards; on, each statement adds one to a locked counter.
final class StatementCounter: SQLDatabase {
    private let base: any SQLDatabase
    private let state = NIOLockedValueBox<(counting: Bool, statements: Int)>((false, 0))

    init(_ base: any SQLDatabase) { self.base = base }

    /// How many statements `work` made the server run (other work running meanwhile counts too).
    func count(_ work: () async throws -> Void) async rethrows -> Int {
        state.withLockedValue { $0 = (true, 0) }
        defer { state.withLockedValue { $0.counting = false } }
        try await work()
        return state.withLockedValue { $0.statements }
    }

    fileprivate func note() {
        state.withLockedValue { if $0.counting { $0.statements += 1 } }
    }

    var dialect: SQLDialect { base.dialect }

    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.write { executor in try await work(Counting(base: executor, counter: self)) }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.read { executor in try await work(Counting(base: executor, counter: self)) }
    }

    func migrate(_ migrations: [Migration]) async throws { try await base.migrate(migrations) }

    func close() async { await base.close() }

    private struct Counting: SQLExecutor {
        let base: any SQLExecutor
        let counter: StatementCounter

        func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
            counter.note()
            return try await base.query(sql)
        }

        @discardableResult
        func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
            counter.note()
            return try await base.execute(sql)
        }

        func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
            counter.note()
            return try await base.query(sql, binds)
        }

        @discardableResult
        func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
            counter.note()
            return try await base.execute(sql, binds)
        }
    }
}
