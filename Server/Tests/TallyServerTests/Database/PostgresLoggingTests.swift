import Logging
import NIOConcurrencyHelpers
import TallySQL
import Testing

@testable import TallyServer

/// What a PostgreSQL database's logger is given while statements run: the statements, with
/// postgres-nio's logs of them, when the logger takes debug messages, and nothing at all
/// otherwise (postgres-nio sets the connection's id in the logger's metadata for every
/// statement, which a handler may format again each time).
@Suite(.serialized) struct PostgresLoggingTests {
    /// Runs a read, a change and a named statement's second run through a database whose logger
    /// records at `level`.
    static func runStatements(level: Logger.Level) async throws -> RecordingLogHandler.Record {
        let record = RecordingLogHandler.Record()
        var logger = Logger(label: "tally.test.postgres") { _ in RecordingLogHandler(record: record) }
        logger.logLevel = level
        var configuration = try await TestPostgres.makeSchema()
        // The pool logs to the same handler when it opens a connection: the one the migration
        // opened stays open for the statements, however slowly a loaded machine runs them.
        configuration.idleTimeout = .seconds(600)
        let database = PostgresDatabase(configuration: configuration, logger: logger)
        defer { Task { await database.close() } }
        try await database.migrate([Migration(name: "0001_notes", both: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT)"])])
        record.reset()
        for id in 1...3 {
            _ = try await database.write { executor in
                try await executor.execute("INSERT INTO notes (id, text) VALUES (\(Int64(id)), \("note"))")
            }
        }
        let count = try await database.read { executor in
            try await executor.query("SELECT count(*) AS n FROM notes").first?.int(SQLColumn("n"))
        }
        #expect(count == 3)
        return record
    }

    @Test func aLoggerAtInfoIsNotTouchedByStatements() async throws {
        let record = try await Self.runStatements(level: .info)
        #expect(record.metadataSets == 0)
        #expect(record.messages.isEmpty)
    }

    /// At debug each statement is given the logger (postgres-nio logs the server's notices
    /// there); at trace its rows are logged too.
    @Test(arguments: [Logger.Level.debug, .trace]) func aLoggerAtDebugOrTraceGetsTheStatements(level: Logger.Level) async throws {
        let record = try await Self.runStatements(level: level)
        #expect(record.metadataSets > 0)
        if level == .trace {
            #expect(record.messages.contains { $0.contains("rows") })
        }
    }
}

/// A log handler that keeps the messages it is given and counts how often its metadata is set.
struct RecordingLogHandler: LogHandler {
    final class Record: Sendable {
        private let state = NIOLockedValueBox((messages: [String](), metadataSets: 0))
        var messages: [String] { state.withLockedValue(\.messages) }
        var metadataSets: Int { state.withLockedValue(\.metadataSets) }
        func reset() { state.withLockedValue { $0 = ([], 0) } }
        fileprivate func log(_ message: String) { state.withLockedValue { $0.messages.append(message) } }
        fileprivate func setMetadata() { state.withLockedValue { $0.metadataSets += 1 } }
    }

    let record: Record
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:] {
        didSet { record.setMetadata() }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        record.log("\(event.level): \(event.message)")
    }
}
