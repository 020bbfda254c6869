public import Foundation
import TallyVerify

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// How ``ServerDelivery`` reaches the Tally server.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the status, headers and body; throws when no answer came.
    func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data)
}

/// ``HTTPTransport`` over `URLSession`.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// - Parameter session: the session; an ephemeral one (no cache, no cookies) by default.
    public init(session: URLSession? = nil) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 30
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: configuration)
        }
    }

    public func send(_ request: URLRequest) async throws -> (status: Int, headers: [String: String], body: Data) {
        let (data, response) = try await session.answer(to: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return (http.statusCode, headers, data)
    }
}
