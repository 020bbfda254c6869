import Foundation
import TallySQL
import TallyServer

/// PostgreSQL databases for the conformance suite, on the server `TALLY_TEST_POSTGRES_URL` names.
///
/// Each call makes a schema of its own (`tally_test_<seconds>_<random>`) and a small pool whose
/// connections have that schema as their `search_path`, so tests running in parallel never see
/// each other's rows and no database has to be created. Schemas left by runs more than an hour
/// old are dropped the first time a run asks for a database.
enum TestPostgres {
    static let prefix = "tally_test_"

    /// The server's URL from the environment.
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TALLY_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw TestFailure("TALLY_TEST_POSTGRES_URL is not set")
        }
        return url
    }

    /// One connection pool for creating schemas, connected (and old schemas cleaned up) once per run.
    private static let admin = Task<PostgresDatabase, any Error> {
        var configuration = try PostgresDatabase.Configuration(url: try url())
        configuration.maximumConnections = 2
        configuration.idleTimeout = .seconds(5)
        let admin = try await PostgresDatabase.connect(configuration)
        try await dropStaleSchemas(admin)
        return admin
    }

    /// A new, empty, migrated database in a schema of its own.
    static func makeDatabase() async throws -> any SQLDatabase {
        let database = PostgresDatabase(configuration: try await makeSchema())
        try await database.migrate(Migrations.all)
        return database
    }

    /// A new, empty schema (not migrated), and how to connect to it: each pool made from the
    /// configuration is one more server instance on the same data.
    static func makeSchema() async throws -> PostgresDatabase.Configuration {
        let admin = try await admin.value
        let schema = "\(prefix)\(Int(Date().timeIntervalSince1970))_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        _ = try await admin.write { executor in try await executor.execute("CREATE SCHEMA \(schema)", []) }
        var configuration = admin.configuration
        configuration.searchPath = schema
        // Small pools that let go of idle connections soon: a run makes ~30 of them.
        configuration.maximumConnections = 4
        configuration.idleTimeout = .seconds(5)
        return configuration
    }

    /// Drops test schemas made more than an hour ago (their name starts with the time they were made).
    private static func dropStaleSchemas(_ admin: PostgresDatabase) async throws {
        let cutoff = Int(Date().timeIntervalSince1970) - 3_600
        let schemas = try await admin.read { executor in
            try await executor.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'tally\\_test\\_%'", [])
                .map { try $0.text(SQLColumn("nspname")) }
        }
        for schema in schemas {
            guard let made = Int(schema.dropFirst(prefix.count).prefix { $0 != "_" }), made < cutoff else { continue }
            _ = try? await admin.write { executor in try await executor.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE", []) }
        }
    }
}
