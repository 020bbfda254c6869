import NIOConcurrencyHelpers
public import TallySQL

/// A database that counts the statements run through it, reads and writes alike, while
/// counting is on: what one operation costs in statements (each a round trip on PostgreSQL;
/// the transaction's BEGIN and COMMIT are not counted). `tally bench server` prints it per
/// request; a test pins it for the hot writes. Off, it only forwards.
public final class StatementCounter: SQLDatabase {
    private let base: any SQLDatabase
    /// Whether counting is on, how many, and the statements' first lines when asked for.
    private let state = NIOLockedValueBox<(counting: Bool, count: Int, lines: [String]?)>((false, 0, nil))

    /// - Parameter base: the database the statements run on.
    public init(_ base: any SQLDatabase) { self.base = base }

    /// How many statements `work` made run (other work running meanwhile counts too).
    /// - Parameter work: what to count.
    /// - Returns: the number of statements.
    public func count(_ work: () async throws -> Void) async rethrows -> Int {
        state.withLockedValue { $0 = (true, 0, nil) }
        defer { state.withLockedValue { $0.counting = false } }
        try await work()
        return state.withLockedValue { $0.count }
    }

    /// The statements `work` made run, in order, each by its first line (for a message).
    /// - Parameter work: what to record.
    /// - Returns: the statements' first lines.
    public func statements(of work: () async throws -> Void) async rethrows -> [String] {
        state.withLockedValue { $0 = (true, 0, []) }
        defer { state.withLockedValue { $0 = (false, $0.count, nil) } }
        try await work()
        return state.withLockedValue { $0.lines ?? [] }
    }

    fileprivate func note(_ statement: @autoclosure () -> String) {
        state.withLockedValue { state in
            guard state.counting else { return }
            state.count += 1
            if state.lines != nil {
                state.lines?.append(statement().split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
            }
        }
    }

    public var dialect: SQLDialect { base.dialect }

    public func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.write { executor in try await work(Counting(base: executor, counter: self)) }
    }

    /// Forwards the tail too, so that the base still merges the tails of writes committed
    /// together, and counts its statements where they run.
    public func write<T: Sendable, Tail: CommitTail>(
        tail: Tail.Type, _ work: @escaping @Sendable (any SQLExecutor) async throws -> (T, Tail?)
    ) async throws -> T {
        try await base.write(tail: Counted<Tail>.self) { executor in
            let (value, tail) = try await work(Counting(base: executor, counter: self))
            return (value, tail.map { Counted(tail: $0, counter: self) })
        }
    }

    public func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.read { executor in try await work(Counting(base: executor, counter: self)) }
    }

    public func readStatement(_ sql: SQL) async throws -> [SQLRow] {
        note(sql.description)
        return try await base.readStatement(sql)
    }

    public func migrate(_ migrations: [Migration]) async throws { try await base.migrate(migrations) }

    public func close() async { await base.close() }

    /// A write's tail that counts the statements it runs.
    private struct Counted<Tail: CommitTail>: CommitTail {
        var tail: Tail
        let counter: StatementCounter

        mutating func merge(_ later: Counted) { tail.merge(later.tail) }

        func run(_ executor: any SQLExecutor) async throws { try await tail.run(Counting(base: executor, counter: counter)) }
    }

    private struct Counting: SQLExecutor {
        let base: any SQLExecutor
        let counter: StatementCounter

        func query(_ sql: SQL) async throws(SQLDatabaseError) -> [SQLRow] {
            counter.note(sql.description)
            return try await base.query(sql)
        }

        @discardableResult
        func execute(_ sql: SQL) async throws(SQLDatabaseError) -> Int {
            counter.note(sql.description)
            return try await base.execute(sql)
        }

        func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
            counter.note(sql)
            return try await base.query(sql, binds)
        }

        @discardableResult
        func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
            counter.note(sql)
            return try await base.execute(sql, binds)
        }
    }
}
