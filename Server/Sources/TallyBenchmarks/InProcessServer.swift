import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TallyCore
import TallySQL
import TallyServer
import TallyTesting
import TallyVerify

/// The Tally server, running in the benchmark's own process on 127.0.0.1 and a free port,
/// built by `buildApplication` as `tally serve --dev --trust-ca-dir` builds it: the catalog's environments plus
/// Sandbox, Apple's root plus a test root minted for the run, durable commits.
///
/// Rate limits are raised for this server only: one machine's loopback clients are one IP
/// address and a few users, which the production limits would rightly throttle.
enum InProcessServer {
    static let host = "127.0.0.1"

    /// The rate limit the benchmarks' servers run with: far above anything one machine can send.
    static let rateLimitPerMinute = 1_000_000_000

    /// The catalog with its rate limits raised; nothing else changes.
    static func benchmarkCatalog(_ catalog: TallyCatalog) -> TallyCatalog {
        var catalog = catalog
        catalog.limits.userRequestsPerMinute = rateLimitPerMinute
        catalog.limits.ipRequestsPerMinute = rateLimitPerMinute
        return catalog
    }

    /// Opens the database (the server migrates it), and reads its durability settings back from it rather
    /// than trusting the code (`journal_mode=wal synchronous=FULL`, `synchronous_commit=on fsync=on`).
    static func open(_ database: ServerConfiguration.Database, logger: Logger) async throws -> (database: any SQLDatabase, durability: String) {
        let opened: any SQLDatabase
        switch database {
        case .sqlite(let path): opened = try SQLiteDatabase(path: path)
        case .postgres(let url): opened = try await PostgresDatabase.connect(url: url, logger: logger)
        case .opened(let database): opened = database
        }
        return (opened, try await durability(of: opened))
    }

    /// The settings that decide whether a commit survives a crash, as the database reports them.
    static func durability(of database: any SQLDatabase) async throws -> String {
        switch database.dialect {
        case .sqlite:
            // The writer's settings decide durability. Each answer is one value, in a column named
            // after the setting: read through that name, no record needed.
            return try await database.write { executor in
                let journal = try await executor.query("PRAGMA journal_mode").first?.optionalText(SQLColumn("journal_mode")) ?? "?"
                let synchronous = try await executor.query("PRAGMA synchronous").first?.optionalInt(SQLColumn("synchronous")) ?? -1
                let names: [Int64: String] = [0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"]
                return "journal_mode=\(journal) synchronous=\(names[synchronous] ?? String(synchronous))"
            }
        case .postgres:
            return try await database.read { executor in
                let commit = try await executor.query("SHOW synchronous_commit").first?.optionalText(SQLColumn("synchronous_commit")) ?? "?"
                let fsync = try await executor.query("SHOW fsync").first?.optionalText(SQLColumn("fsync")) ?? "?"
                return "synchronous_commit=\(commit) fsync=\(fsync)"
            }
        }
    }

    /// Runs the server on `database` while `body` runs with its port, then stops it gracefully.
    /// - Parameters:
    ///   - database: the opened database; the caller closes it.
    ///   - catalog: what the server sells (with raised limits: see ``benchmarkCatalog(_:)``).
    ///   - authority: the test certificate authority whose root the server trusts, as
    ///     `tally serve --dev --trust-ca-dir` does.
    ///   - logger: the server's logger.
    ///   - configure: changes to the configuration, last.
    ///   - body: what to do with the running server.
    /// - Throws: what `body` throws, or ``ServerBenchmark/Failure`` when the server does not start.
    static func run<T: Sendable>(
        database: any SQLDatabase, catalog: TallyCatalog, trusting authority: TestCertificateAuthority, logger: Logger,
        responseSigningKey: ResponseSigningKey? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        var configuration = ServerConfiguration(database: .opened(database), catalog: catalog)
        configuration.responseSigningKey = responseSigningKey
        configuration.host = host
        configuration.port = 0
        configuration.development = true
        configuration.testRoots = [authority.root]
        configuration.logger = logger
        configure(&configuration)
        return try await running(
            logger: logger, { onServerRunning in try await buildApplication(configuration: configuration, onServerRunning: onServerRunning) },
            body)
    }

    /// Runs an application made by `makeApplication` (given the callback that learns its port)
    /// while `body` runs with the port, then stops it gracefully.
    static func running<T: Sendable, App: Service>(
        logger: Logger, _ makeApplication: (@escaping @Sendable (any Channel) async -> Void) async throws -> App,
        _ body: @escaping @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = try await makeApplication { channel in portContinuation.yield(channel.localAddress?.port ?? 0) }

        // No signal handlers: the benchmark stops its server itself, gracefully, when done.
        let server = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { portContinuation.finish() }
                try await server.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else {
                await server.triggerGracefulShutdown()
                throw ServerBenchmark.Failure(description: "the server did not start")
            }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body(port))
            } catch {
                outcome = .failure(error)
            }
            await server.triggerGracefulShutdown()
            try await group.waitForAll()
            return try outcome.get()
        }
    }
}
