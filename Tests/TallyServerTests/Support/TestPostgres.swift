import Foundation
import TallyServer

/// PostgreSQL databases for the conformance suite; filled in with the PostgreSQL backend.
enum TestPostgres {
    static func makeDatabase() async throws -> any SQLDatabase {
        throw TestFailure("the PostgreSQL backend is not built yet")
    }
}
