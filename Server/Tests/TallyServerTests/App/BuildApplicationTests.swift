import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallySQL
import TallyServer
import TallyTestSupport
import Testing

/// What `buildApplication` does beyond the routes: it opens and migrates the database it is
/// named, and runs the background services it is configured with.
@Suite(.timeLimit(.minutes(1))) struct BuildApplicationTests {
    @Test func anSQLiteFileItIsNamedIsCreatedMigratedAndKeepsWhatWasWritten() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("tally.sqlite")
        let configuration = API.configuration(sqlitePath: path)
        try await buildApplication(configuration: configuration).test(.router) { client in
            let user = try await client.newUser()
            let me = try await client.get("/v1/me", token: user.userToken)
            #expect(me.status == .ok)
        }
        let reopened = try SQLiteDatabase(path: path)
        let users = try await reopened.read { try await $0.query("SELECT id FROM users", []) }
        #expect(users.count == 1)
    }

    @Test func theSweeperReleasesAnExpiredReservationWithoutAnyRequest() async throws {
        let harness = try await Harness(.sqlite)
        var configuration = API.configuration(harness: harness, database: harness.database)
        configuration.reservationSweepInterval = .milliseconds(20)
        let database = harness.database
        @Sendable func status() async throws -> String? {
            try await database.read { try await $0.query("SELECT status FROM reservations", []).first?.optionalText(SQLColumn("status")) }
        }
        try await buildApplication(configuration: configuration).test(.router) { client in
            let user = try await client.newUser()
            let reserve = try await client.post(
                "/v1/me/reservations", token: user.userToken,
                body: API.body(ReservationRequest(currency: "credits", amount: 2, ttlSeconds: 60, idempotencyKey: "r")))
            #expect(reserve.status == .created)
            // Sweeps run, but the reservation's time is not up.
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await status() == "held")

            try await harness.advance(by: .seconds(61))
            var swept = try await status()
            for _ in 0..<250 where swept == "held" {
                try await Task.sleep(for: .milliseconds(20))
                swept = try await status()
            }
            #expect(swept == "expired")
        }
    }
}
