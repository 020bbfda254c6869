import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import PostgresNIO
import TallySQL
import Testing

@testable import TallyServer

/// What the requests see of connections PostgreSQL ends under them.
@Suite(.serialized) struct PostgresRestartTests {
    /// A pool of at most `maximum` connections whose application name is its own, so that its
    /// server processes can be found and ended; and its configuration, renamed for an operator's
    /// connection beside it.
    static func database(
        _ label: String, maximum: Int
    ) async throws -> (TallyServer.PostgresDatabase, name: String, operator: TallyServer.PostgresDatabase.Configuration) {
        var configuration = try await TestPostgres.makeSchema()
        let name = "tally-\(label)-\(UInt32.random(in: 0...UInt32.max))"
        configuration.applicationName = name
        configuration.maximumConnections = maximum
        let database = TallyServer.PostgresDatabase(configuration: configuration)
        configuration.applicationName = "\(name)-operator"
        return (database, name, configuration)
    }

    /// Connections the server ends (a restart, an operator's `pg_terminate_backend`, a proxy's
    /// idle timeout) are dropped from the pool and replaced: the transactions right after it
    /// run, on new connections.
    @Test func connectionsTheServerEndsAreReplaced() async throws {
        let (database, name, configuration) = try await Self.database("pool", maximum: 3)
        defer { Task { await database.close() } }
        // Another pool, to end this one's connections.
        let operator_ = TallyServer.PostgresDatabase(configuration: configuration)
        defer { Task { await operator_.close() } }
        @Sendable func backends() async throws -> Set<Int64> {
            Set(
                try await operator_.readStatement("SELECT pid FROM pg_stat_activity WHERE application_name = \(name)").map {
                    try $0.int(SQLColumn("pid"))
                })
        }
        /// Three transactions, each holding its connection until all three are lent.
        @Sendable func threeAtOnce() async throws {
            let allLent = NIOLockedValueBox(false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await database.write { executor in
                            _ = try await executor.query("SELECT 1 AS ok")
                            let deadline = ContinuousClock.now + .seconds(10)
                            while !allLent.withLockedValue({ $0 }), ContinuousClock.now < deadline {
                                if database.connectionCounts == (3, 0) { allLent.withLockedValue { $0 = true } }
                                try await Task.sleep(for: .milliseconds(2))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(allLent.withLockedValue { $0 })
        }
        try await threeAtOnce()
        #expect(database.connectionCounts == (3, 3))
        let before = try await backends()
        #expect(before.count == 3)
        // Ended, and gone on the server's side (the call waits for that), whether or not this
        // pool has seen its connections close yet: the transactions right after it all run.
        let ended = try await operator_.readStatement(
            "SELECT pg_terminate_backend(pid, 5000) AS ended FROM pg_stat_activity WHERE application_name = \(name)")
        #expect(ended.count == 3)
        #expect(try ended.allSatisfy { try $0.bool(SQLColumn("ended")) })
        try await threeAtOnce()
        let rows = try await database.read { executor in try await executor.query("SELECT 1 AS ok") }
        #expect(rows.count == 1)
        let after = try await backends()
        #expect(after.count == 3 && after.isDisjoint(with: before))
        #expect(database.connectionCounts == (3, 3))
    }

    /// A connection whose end the pool has not read yet (its event loop busy when the server
    /// ended it) fails its `BEGIN`; the transaction then runs on a new connection, and the
    /// request does not fail.
    @Test func aTransactionOnAConnectionEndedUnseenRunsOnAnother() async throws {
        let (database, name, configuration) = try await Self.database("unseen", maximum: 1)
        defer { Task { await database.close() } }
        let loop = try await database.withPooledConnection { $0.eventLoop }
        // The operator's connection on an event loop of its own, which stays free.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let operator_ = try await PostgresConnection.connect(
            on: group.next(), configuration: try configuration.connectionConfiguration(), id: 1, logger: TallyServer.PostgresDatabase.silentLogger)
        defer {
            Task {
                try? await operator_.close()
                try? await group.shutdownGracefully()
            }
        }
        // The pool's connection's event loop is held busy, so it cannot read what comes next.
        let resume = DispatchSemaphore(value: 0)
        let blocking = NIOLockedValueBox(false)
        defer { resume.signal() }
        loop.execute {
            blocking.withLockedValue { $0 = true }
            _ = resume.wait(timeout: .now() + 10)
        }
        let blockedBy = ContinuousClock.now + .seconds(5)
        while !blocking.withLockedValue({ $0 }), ContinuousClock.now < blockedBy { try await Task.sleep(for: .milliseconds(1)) }
        try #require(blocking.withLockedValue { $0 })
        let ended = try await operator_.query(
            "SELECT pg_terminate_backend(pid, 5000) AS ended FROM pg_stat_activity WHERE application_name = \(name)",
            logger: TallyServer.PostgresDatabase.silentLogger
        ).collect()
        #expect(ended.count == 1)
        #expect(database.connectionCounts == (1, 1))
        let write = Task { try await database.write { executor in try await executor.query("SELECT 1 AS ok").count } }
        // The write takes the idle connection, which still looks open, and sends BEGIN, which
        // waits for the event loop.
        let deadline = ContinuousClock.now + .seconds(5)
        while database.connectionCounts != (1, 0), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(database.connectionCounts == (1, 0))
        try await Task.sleep(for: .milliseconds(20))
        resume.signal()
        #expect(try await write.value == 1)
        #expect(database.connectionCounts == (1, 1))
    }
}
