import Foundation
import TallySQL
import TallyServer

/// A database that can be taken down: while it is down every transaction fails as an
/// unreachable server's would (`SQLDatabaseError.unavailable`); otherwise it is the real one.
final class OutageDatabase: SQLDatabase, @unchecked Sendable {
    private let base: any SQLDatabase
    private let lock = NSLock()
    private var down = false

    init(_ base: any SQLDatabase) {
        self.base = base
    }

    /// Takes the database down or brings it back.
    func setDown(_ value: Bool) { lock.withLock { down = value } }

    private func check() throws {
        if lock.withLock({ down }) { throw SQLDatabaseError(.unavailable, "connection refused") }
    }

    var dialect: SQLDialect { base.dialect }

    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try check()
        return try await base.write(work)
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try check()
        return try await base.read(work)
    }

    func migrate(_ migrations: [Migration]) async throws {
        try check()
        try await base.migrate(migrations)
    }

    func close() async { await base.close() }
}
