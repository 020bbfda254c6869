import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends OCSP requests over HTTP POST (RFC 6960 appendix A) with `URLSession`.
public struct URLSessionOCSPTransport: OCSPTransport {
    /// How long one request may take.
    public var timeout: Double

    /// - Parameter timeout: how long one request may take; 10 seconds by default.
    public init(timeout: Double = 10) {
        self.timeout = timeout
    }

    /// An error for a responder that answered with something other than an OCSP response.
    public struct HTTPError: Error, CustomStringConvertible {
        /// The HTTP status code.
        public let status: Int
        public var description: String { "OCSP responder answered HTTP \(status)" }
    }

    public func send(_ request: [UInt8], to responderURI: String) async throws -> [UInt8] {
        guard let url = URL(string: responderURI) else { throw URLError(.badURL) }
        var urlRequest = URLRequest(url: url, timeoutInterval: timeout)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/ocsp-request", forHTTPHeaderField: "Content-Type")
        urlRequest.httpBody = Data(request)
        let (data, response) = try await URLSession.shared.answer(to: urlRequest)
        if let http = response as? HTTPURLResponse, http.statusCode != 200 {
            throw HTTPError(status: http.statusCode)
        }
        return Array(data)
    }
}
