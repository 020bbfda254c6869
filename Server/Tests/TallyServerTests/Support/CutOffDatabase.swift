import Foundation
import TallySQL

/// A database whose next write can be cut off at its n-th statement, after the statements
/// before it ran: the write fails as a crash or a lost connection would leave it, mid-way, and
/// the database rolls back whatever it had done. Otherwise it is the real one.
final class CutOffDatabase: SQLDatabase, @unchecked Sendable {
    private let base: any SQLDatabase
    private let lock = NSLock()
    private var armed: Int?
    private var cut = false

    init(_ base: any SQLDatabase) {
        self.base = base
    }

    /// Makes the next write fail at its `statement`-th statement (1 for the first).
    func cutNextWrite(atStatement statement: Int) {
        lock.withLock {
            armed = statement
            cut = false
        }
    }

    /// Whether the write armed last was cut off (false when it had fewer statements).
    var lastWriteWasCut: Bool { lock.withLock { cut } }

    fileprivate func noteCut() { lock.withLock { cut = true } }

    var dialect: SQLDialect { base.dialect }

    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let statement: Int? = lock.withLock {
            defer { armed = nil }
            return armed
        }
        guard let statement else { return try await base.write(work) }
        let counter = StatementCount()
        return try await base.write { executor in
            try await work(Cutting(base: executor, database: self, cutAt: statement, count: counter))
        }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.read(work)
    }

    func migrate(_ migrations: [Migration]) async throws { try await base.migrate(migrations) }

    func close() async { await base.close() }

    /// Statements run so far in one write.
    private final class StatementCount: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.withLock {
                value += 1
                return value
            }
        }
    }

    private struct Cutting: SQLExecutor {
        let base: any SQLExecutor
        let database: CutOffDatabase
        let cutAt: Int
        let count: StatementCount

        private func step() throws(SQLDatabaseError) {
            guard count.next() == cutAt else { return }
            database.noteCut()
            throw SQLDatabaseError(.other, "the write was cut off at statement \(cutAt)")
        }

        func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
            try step()
            return try await base.query(sql)
        }

        func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
            try step()
            return try await base.execute(sql)
        }

        func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
            try step()
            return try await base.query(sql, binds)
        }

        func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
            try step()
            return try await base.execute(sql, binds)
        }
    }
}
