import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TallyCore
import TallyServer
import Testing

/// The server's routes in memory, on one backend, with helpers to call them as a device would.
struct API: @unchecked Sendable {
    static let secret = "test-secret-key"
    let harness: Harness
    let router: Router<TallyRequestContext>
    let metrics = Metrics()

    /// - Parameter database: what the server's storage runs on, made from the harness's database.
    init(_ backend: Backend = .sqlite, catalog: TallyCatalog = Harness.catalog,
         database wrap: (any SQLDatabase) -> any SQLDatabase = { $0 }) async throws {
        harness = try await Harness(backend)
        let database = wrap(harness.database)
        let clock = harness.clock
        let storage = SQLStorage(database: database, catalog: catalog, now: { clock.now })
        router = TallyServerApp.buildRouter(ServerDependencies(
            storage: storage, verifier: harness.verifier, catalog: catalog, secretKey: Self.secret, metrics: metrics,
            now: { clock.now },
            healthCheck: { (try? await database.read { try await $0.query("SELECT 1 AS ok", []).count }) == 1 }))
    }

    /// Runs `body` against the routes.
    func test(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: router).test(.router) { client in try await body(client) }
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
