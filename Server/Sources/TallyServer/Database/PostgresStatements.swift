import NIOConcurrencyHelpers
import PostgresNIO
import TallySQL

/// Names for the statements Tally runs often, so that each pooled connection has PostgreSQL
/// parse and plan a statement once and then only binds and executes it.
///
/// Planning was most of PostgreSQL's time for Tally's short statements: `pgbench` running the
/// statements of `GET /v1/me` did 2,600 transactions/s sent as they are and 7,600/s prepared
/// (docs/benchmarks.md). A statement is named by its text and the types its values are bound
/// with, the same types an unnamed statement declares, so a named statement means what the
/// unnamed one did. postgres-nio prepares a name on each connection the first time that
/// connection runs it.
final class PostgresStatements: Sendable {
    /// Names given at most, retired ones included; past them, new texts run unnamed, so that
    /// texts that differ by their filters (the console's) and names retired after failures do
    /// not grow every connection's statements without end.
    static let limit = 400

    /// A statement as the executor has it: its text as rendered, its values' types, and whether its count is wanted.
    private struct Key: Hashable {
        let text: String
        let types: [PostgresDataType]
        let counting: Bool
    }

    private struct State {
        var statements: [Key: Statement] = [:]
        var issued = 0
    }

    private let state = NIOLockedValueBox(State())
    /// This pool's own prefix: behind a pooler that shares server sessions between Tally
    /// instances, another instance's statement of the same number is then an unknown name (an
    /// error), never a different statement run with these values.
    private let prefix = "tally_\(String(UInt32.random(in: 0...UInt32.max), radix: 36))_"

    /// A prepared statement's identity: its name, text and declared parameter types.
    struct Statement: Sendable {
        let name: String
        let text: String
        let types: [PostgresDataType]
    }

    /// The named statement for `rendered`, or nil to run it unnamed: statements other than
    /// queries and changes of rows, and new texts once ``limit`` names are given. A statement
    /// named before is found by its text as rendered, without reading the text again.
    /// - Parameter counting: true when the caller wants the count of rows changed. postgres-nio
    ///   gives a named statement's rows but not its command tag, so an `INSERT`, `UPDATE` or
    ///   `DELETE` is named with ` RETURNING 1` added, one row for each row it changed; other
    ///   statements, and those that return rows already, run unnamed then.
    func statement(for rendered: SQL.Rendered, counting: Bool) -> Statement? {
        let key = Key(text: rendered.text, types: rendered.binds.map(PostgresDatabase.bindType), counting: counting)
        if let known = state.withLockedValue({ $0.statements[key] }) { return known }
        guard let text = Self.namedText(rendered.text, counting: counting) else { return nil }
        return state.withLockedValue { state in
            if let known = state.statements[key] { return known }
            guard state.issued < Self.limit else { return nil }
            state.issued += 1
            let statement = Statement(name: "\(prefix)\(state.issued)", text: text, types: key.types)
            state.statements[key] = statement
            return statement
        }
    }

    /// Gives `statement`'s text a new name next time (while names are left). Called when it
    /// failed for a reason other than a constraint: postgres-nio keeps a failed preparation's
    /// error for the name on that connection, and a new name prepares afresh.
    func retire(_ statement: Statement) {
        state.withLockedValue { state in
            // Rare, and at most `limit` entries: a search by name is enough.
            if let key = state.statements.first(where: { $0.value.name == statement.name })?.key {
                state.statements[key] = nil
            }
        }
    }

    /// Forgets every name, after migrations changed what statements read: a statement prepared
    /// before could otherwise answer with columns that are no longer there.
    func forgetAll() {
        state.withLockedValue { $0.statements.removeAll() }
    }

    /// Names in use, for tests.
    var count: Int { state.withLockedValue(\.statements.count) }

    /// Names given so far, retired ones included, for tests.
    var issued: Int { state.withLockedValue(\.issued) }

    /// The text a statement is named with, or nil to run it unnamed: queries and changes of
    /// rows are named; aggregates (`GROUP BY`), transaction control, schema changes and locks
    /// taken with `SELECT pg_…` through ``SQLExecutor/execute(_:)`` run unnamed.
    static func namedText(_ text: String, counting: Bool) -> String? {
        let start = text.utf8.drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        let head = String(decoding: start.prefix(while: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }), as: UTF8.self).uppercased()
        guard counting else {
            // An aggregate (the console's and the metrics' reports) costs its execution, not its
            // planning, and a generic plan would not see how wide its window is.
            guard ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains(head), text.range(of: "GROUP BY", options: .caseInsensitive) == nil
            else { return nil }
            return text
        }
        guard ["INSERT", "UPDATE", "DELETE"].contains(head), text.range(of: "RETURNING", options: .caseInsensitive) == nil,
            !text.contains(";"), !text.contains("--")  // nothing may end the statement before the clause added
        else { return nil }
        return text + " RETURNING 1"
    }
}

/// The statement a ``PostgresStatements/Statement`` names, as postgres-nio's prepared statements
/// take it: their name, text and types are static, so they are read from the running task.
///
/// postgres-nio reads them in the task that calls `execute`, before anything is sent, which is
/// where ``PostgresExecutor`` binds them (`PostgresStatementsTests` runs different statements
/// at once on one pool and checks every answer).
struct NamedQuery: PostgresPreparedStatement {
    @TaskLocal static var current: PostgresStatements.Statement?
    // Without a statement bound, a name that fails loudly rather than one that answers nothing.
    static var name: String { current?.name ?? "tally_unbound" }
    static var sql: String { current?.text ?? "SELECT 'a named statement ran without its text'::int" }
    static var bindingDataTypes: [PostgresDataType] { current?.types ?? [] }

    let bindings: PostgresBindings
    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> SQLRow { try PostgresDatabase.row(row) }
}

/// ``NamedQuery`` for a change whose rows (one per row changed) are only counted.
struct NamedCount: PostgresPreparedStatement {
    typealias Row = Bool
    static var name: String { NamedQuery.name }
    static var sql: String { NamedQuery.sql }
    static var bindingDataTypes: [PostgresDataType] { NamedQuery.bindingDataTypes }

    let bindings: PostgresBindings
    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> Bool { true }
}
