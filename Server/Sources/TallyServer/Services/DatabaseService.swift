import ServiceLifecycle
import TallySQL

/// Keeps a database the application opened until the application stops, then closes it.
///
/// A service group stops its services in the reverse of their order, so listed first it
/// closes the database after the HTTP server and the sweeper have stopped using it.
struct DatabaseService: Service {
    let database: any SQLDatabase

    func run() async throws {
        // Cancelled or shut down gracefully: either way the database is closed.
        try? await gracefulShutdown()
        await database.close()
    }
}
