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
    /// How long it may take.
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
public struct AsyncHTTPClientTransport: AppleHTTPTransport {
    /// The largest answer read: Apple's pages of history are far smaller.
    static let maximumBody = 4 << 20
    let client: HTTPClient

    /// The transport over AsyncHTTPClient's process-wide shared client.
    public init() {
        client = .shared
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
