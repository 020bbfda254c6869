import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP request to Apple.
public struct AppleHTTPRequest: Sendable {
    /// `GET`, `POST` or `PUT`.
    public var method: String
    /// The whole URL, query included.
    public var url: URL
    /// Header names and values.
    public var headers: [String: String]
    /// The body, for `POST` and `PUT`.
    public var body: Data?
    /// How long it may take, connecting included: the try's share of the call's budget.
    public var timeout: TimeInterval
}

/// Apple's answer.
public struct AppleHTTPResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The headers, names in lower case.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - headers: the headers, names in lower case.
    ///   - body: the body.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// How the App Store Server API client reaches Apple: AsyncHTTPClient in the server, a test's
/// own transport in front of it to count or break requests.
public protocol AppleHTTPTransport: Sendable {
    /// Sends the request; throws when there is no answer (network, timeout).
    func send(_ request: AppleHTTPRequest) async throws -> AppleHTTPResponse
}

/// The transport over AsyncHTTPClient (the Swift Server Workgroup's HTTP client).
///
/// Connecting to Apple may take ``connectTimeout``, and a connection Apple refuses fails the try
/// at once: AsyncHTTPClient's default is to retry it until the request's deadline, which made an
/// unreachable Apple cost every try its whole timeout.
public struct AsyncHTTPClientTransport: AppleHTTPTransport {
    /// The largest answer read: Apple's pages of history are far smaller.
    static let maximumBody = 4 << 20
    /// How long connecting to Apple may take, TLS included: 2 seconds.
    public static let connectTimeout: TimeInterval = 2
    /// One client for every call to Apple, for the life of the process (as `HTTPClient.shared`,
    /// which is never shut down either).
    private static let appleClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.timeout.connect = .milliseconds(Int64(connectTimeout * 1000))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
    let client: HTTPClient

    /// The transport over the process-wide client for Apple.
    public init() {
        client = Self.appleClient
    }

    public func send(_ request: AppleHTTPRequest) async throws -> AppleHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(request.timeout * 1000)))
        let body = try await response.body.collect(upTo: Self.maximumBody)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return AppleHTTPResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }
}
