import TallySQL
import Testing

@testable import TallyServer

/// On PostgreSQL a write adds to its connection's shard of each rollup row, so that writes on
/// the pool's other connections do not wait for its commit; on SQLite, with one writer, there
/// is one row per key.
@Suite struct MetricsRollupShardTests {
    @Test(arguments: Backend.available)
    func aWriteAddsToTheShardOfItsConnection(backend: Backend) async throws {
        let database = try await backend.makeDatabase()
        for day in Int64(20_000)..<20_003 {
            // A key of its own for each write: the rows of that key are the ones it added to.
            let (pid, shards) = try await database.write { executor in
                let pid = backend == .postgres ? try await executor.query("SELECT pg_backend_pid() AS pid").first?.int(SQLColumn("pid")) : nil
                // As a write ends (`Transactions.write`): its context's tail, run on its connection.
                let context = WriteContext(executor, now: day * 86_400_000, dialect: database.dialect)
                MetricsRollup.noteLedger(context, kind: .purchase, bucket: .balance, currency: "credits", amount: 1)
                try await WriteTail(dialect: database.dialect, eventRows: [], rollups: try await MetricsRollup.pending(context)).run(executor)
                let shards = try await executor.query("SELECT shard FROM metric_days WHERE figure = 'ledger_entries' AND day = \(day)").map {
                    try $0.int(SQLColumn("shard"))
                }
                return (pid, shards)
            }
            // The rows this write added to: one, its connection's.
            let expected = try pid.map { $0 % MetricsRollup.shards } ?? #require(backend == .sqlite ? 0 : nil)
            #expect(shards == [expected])
        }
        let total = try await database.read { executor in
            try await executor.query("SELECT SUM(value) AS total FROM metric_days WHERE figure = 'ledger_entries'").first?.int(SQLColumn("total"))
        }
        #expect(total == 3)
    }
}
