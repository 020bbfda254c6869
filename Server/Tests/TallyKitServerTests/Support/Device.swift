import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallyKit
import TallyKitTesting
import TallySQL
import TallyServer
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Tally server running on loopback for the length of a test, on SQLite, with the test
/// authority trusted and the device's clock.
struct LiveServer: Sendable {
    let baseURL: URL
    let storage: SQLStorage

    static let catalog: TallyCatalog = try! TallyCatalog.load(contentsOf: Kit.catalogFile)

    /// Runs a server on loopback; it verifies app receipts signed by `receiptAuthority`.
    static func run(
        time: ManualDate, receiptAuthority: TestReceiptAuthority? = nil, responseSigningKey: ResponseSigningKey? = nil,
        _ body: @Sendable (LiveServer) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SQLiteDatabase(path: folder.path("tally.sqlite"))
        try await database.migrate(Migrations.all)
        let storage = SQLStorage(database: database, catalog: catalog, now: { time.now })
        let verifier = SignedDataVerifier(
            .init(
                bundleID: .equals(Kit.bundleID), appAppleID: .equals(Kit.appAppleID), environments: [.sandbox, .production],
                rootCertificates: [Kit.authority.root]),
            now: { time.now })
        var configuration = ServerConfiguration(database: .opened(database), catalog: catalog)
        configuration.now = { time.now }
        configuration.verifier = verifier
        if let receiptAuthority {
            configuration.receiptVerifier = ReceiptVerifier(
                .init(bundleID: .equals(Kit.bundleID), environments: [.sandbox, .production], rootCertificates: [receiptAuthority.root]),
                now: { time.now })
        }
        configuration.secretKey = "kit-secret"
        configuration.responseSigningKey = responseSigningKey
        configuration.reservationSweepInterval = nil
        configuration.logger.logLevel = .warning
        try await buildApplication(configuration: configuration).test(.live) { client in
            let port = try #require(client.port)
            try await body(LiveServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, storage: storage))
        }
        await database.close()
    }
}

/// A transport that fails on purpose in front of the real one: no network, or a server error.
final class FlakyTransport: HTTPTransport, @unchecked Sendable {
    enum Failure { case offline, timeout, serverError, answerLost }
    private let lock = NSLock()
    private let real = URLSessionTransport()
    private var failures: [Failure] = []
    private var always: Failure?
    private(set) var requests: [String] = []

    /// The next calls fail with these, in order.
    func fail(_ failures: Failure...) { lock.withLock { self.failures += failures } }
    /// Every call fails with this until `heal()`.
    func failAlways(_ failure: Failure) { lock.withLock { always = failure } }
    func heal() {
        lock.withLock {
            always = nil
            failures.removeAll()
        }
    }
    var requestCount: Int { lock.withLock { requests.count } }

    func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data) {
        let failure: Failure? = lock.withLock {
            requests.append("\(request.httpMethod ?? "GET") \(request.url?.path ?? "")")
            if let always { return always }
            return failures.isEmpty ? nil : failures.removeFirst()
        }
        switch failure {
        case .offline?: throw URLError(.notConnectedToInternet)
        case .timeout?: throw URLError(.timedOut)
        case .serverError?:
            return (503, [:], Data(#"{"error":{"code":"unavailable","message":"simulated outage","request_id":"test"}}"#.utf8))
        case .answerLost?:
            // The server does the work; the answer never reaches the device.
            _ = try await real.send(request)
            throw URLError(.networkConnectionLost)
        case nil:
            return try await real.send(request)
        }
    }
}
