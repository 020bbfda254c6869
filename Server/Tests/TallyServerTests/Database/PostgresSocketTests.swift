import Foundation
import TallySQL
import Testing

@testable import TallyServer

/// A PostgreSQL on the same machine reached through its Unix-domain socket
/// (`?host=/directory`), on the server the tests use (scripts/test.sh gives it a socket and sets
/// `TALLY_TEST_POSTGRES_SOCKET_URL` beside `TALLY_TEST_POSTGRES_URL`).
@Suite struct PostgresSocketTests {
    static let socketURL = ProcessInfo.processInfo.environment["TALLY_TEST_POSTGRES_SOCKET_URL"]

    /// The session comes over the socket, not TCP (it has no server address), and runs Tally's
    /// schema and a purchase there.
    @Test(
        .enabled(
            if: socketURL != nil && Backend.available.contains(.postgres),
            "TALLY_TEST_POSTGRES_URL and TALLY_TEST_POSTGRES_SOCKET_URL (the same server's socket) are not both set"))
    func aServerOnThisMachineAnswersOnItsSocket() async throws {
        let socket = try PostgresDatabase.Configuration(url: try #require(Self.socketURL))
        #expect(socket.socketPath != nil)
        var configuration = try await TestPostgres.makeSchema()
        let tcp = PostgresDatabase(configuration: configuration)
        defer { Task { await tcp.close() } }
        // The schema made over TCP, reached through the socket as the socket's URL says.
        (configuration.host, configuration.port, configuration.tls) = (socket.host, socket.port, socket.tls)
        (configuration.username, configuration.password, configuration.database) = (socket.username, socket.password, socket.database)
        let database = PostgresDatabase(configuration: configuration)
        defer { Task { await database.close() } }
        try await database.migrate(Migrations.all)
        let local: SQL = "SELECT inet_server_addr() IS NULL AS local"
        #expect(try await database.readStatement(local).first?.bool(SQLColumn("local")) == true)
        #expect(try await tcp.readStatement(local).first?.bool(SQLColumn("local")) == false)

        let harness = try await Harness(.postgres, database: database)
        let user = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.10", for: user)
        let answer = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        #expect(answer.balances.first { $0.currency == "credits" }?.available == 12, "the sign-up grant's 2 and the pack's 10")
        try await harness.checkInvariants()
    }
}
