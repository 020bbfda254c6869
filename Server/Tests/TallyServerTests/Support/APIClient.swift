import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallySQL
import Testing

@testable import TallyServer

/// The server in memory, built by `buildApplication` on one backend, with helpers to call it
/// as a device would.
struct API: Sendable {
    static let secret = "test-secret-key"
    let harness: Harness
    let metrics: Metrics
    let configuration: ServerConfiguration
    /// What the server runs on.
    let database: any SQLDatabase

    /// - Parameters:
    ///   - catalog: what the server sells.
    ///   - trustedProxies: the proxies whose forwarding headers name the client.
    ///   - database: what the server runs on, made from the harness's database.
    ///   - readsEvents: whether the harness records the API as a reader of the events first.
    init(
        _ backend: Backend = .sqlite, catalog: TallyCatalog = Harness.catalog, trustedProxies: TrustedProxies = .none,
        database wrap: (any SQLDatabase) -> any SQLDatabase = { $0 }, readsEvents: Bool = true
    ) async throws {
        harness = try await Harness(backend, readsEvents: readsEvents)
        database = wrap(harness.database)
        var configuration = Self.configuration(harness: harness, catalog: catalog, database: database)
        configuration.trustedProxies = trustedProxies
        self.configuration = configuration
        metrics = configuration.metrics
    }

    /// The configuration of the tests' servers: the harness's clock and verifier, the test
    /// secret key, no sweeper (tests expire reservations by moving the clock), no webhook
    /// delivery worker (the delivery tests run one by hand).
    static func configuration(harness: Harness, catalog: TallyCatalog = Harness.catalog, database: any SQLDatabase) -> ServerConfiguration {
        var configuration = ServerConfiguration(database: .opened(database), catalog: catalog)
        let clock = harness.clock
        configuration.now = { clock.now }
        configuration.verifier = harness.verifier
        configuration.secretKey = secret
        configuration.reservationSweepInterval = nil
        configuration.webhookDelivery = nil
        configuration.logger.logLevel = .warning
        return configuration
    }

    /// The configuration of a server that opens an SQLite file of its own, as `tally serve`
    /// does: no sweeper, warnings and worse logged.
    static func configuration(sqlitePath path: String) -> ServerConfiguration {
        var configuration = ServerConfiguration(database: .sqlite(path: path), catalog: Harness.catalog)
        configuration.reservationSweepInterval = nil
        configuration.logger.logLevel = .warning
        return configuration
    }

    /// The routes, as `buildApplication` builds them.
    var router: Router<TallyRequestContext> { buildRouter(ServerDependencies(configuration, database: database)) }

    /// Runs `body` against the server: its routes in memory, or over real sockets with `.live`.
    func test(_ setup: TestingSetup = .router, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await buildApplication(configuration: configuration).test(setup) { client in try await body(client) }
    }

    static func json(_ response: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:]
    }

    static func errorCode(_ response: TestResponse) -> String? {
        (json(response)["error"] as? [String: Any])?["code"] as? String
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try TallyAPI.decoder().decode(T.self, from: Data(response.body.readableBytesView))
    }

    static func body(_ value: some Encodable) -> ByteBuffer {
        ByteBuffer(bytes: (try? TallyAPI.encoder().encode(value)) ?? Data())
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }
}

extension TestClientProtocol {
    /// Creates a user and returns its token.
    func newUser() async throws -> CreateUserResponse {
        let response = try await execute(uri: "/v1/users", method: .post)
        #expect(response.status == .created)
        return try API.decode(CreateUserResponse.self, response)
    }

    func post(_ uri: String, token: String?, body: ByteBuffer = ByteBuffer()) async throws -> TestResponse {
        try await execute(uri: uri, method: .post, headers: token.map(API.bearer) ?? [.contentType: "application/json"], body: body)
    }

    func get(_ uri: String, token: String?) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: token.map(API.bearer) ?? [:])
    }
}
