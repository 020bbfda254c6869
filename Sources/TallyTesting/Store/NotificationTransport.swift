public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivers an App Store Server Notification V2 body to a URL.
///
/// A seam so that the simulated store delivers over HTTP (``URLSessionNotificationTransport``)
/// or into memory (``NotificationInbox``) in tests.
public protocol NotificationTransport: Sendable {
    /// Posts `body` (`{"signedPayload": …}`) to `url` and returns the HTTP status; throws when
    /// the server cannot be reached.
    func post(_ body: Data, to url: URL) async throws -> Int
}

/// Posts notifications over HTTP with `URLSession`.
@available(macOS 12, iOS 15, tvOS 15, watchOS 8, *)
public struct URLSessionNotificationTransport: NotificationTransport {
    /// How long one attempt may take, in seconds.
    public var timeout: Double

    /// - Parameter timeout: how long one attempt may take; 10 seconds by default.
    public init(timeout: Double = 10) {
        self.timeout = timeout
    }

    public func post(_ body: Data, to url: URL) async throws -> Int {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

/// Receives notifications in memory: the test double of a notification endpoint.
///
/// It can be told to answer with a status or to be unreachable for the next attempts, to
/// exercise the store's retries.
public final class NotificationInbox: NotificationTransport, @unchecked Sendable {
    /// What the inbox does with one attempt.
    public enum Answer: Sendable, Equatable {
        /// Answer with this HTTP status.
        case status(Int)
        /// Refuse the connection.
        case unreachable
    }

    /// One attempt as the inbox saw it.
    public struct Attempt: Sendable {
        /// The `signedPayload` posted.
        public let signedPayload: String
        /// The URL posted to.
        public let url: URL
        /// What the inbox answered.
        public let answer: Answer
    }

    /// An error thrown for an unreachable inbox, as a network would.
    public struct Unreachable: Error, CustomStringConvertible {
        public var description: String { "connection refused (test inbox is unreachable)" }
    }

    private let lock = NSLock()
    private var scripted: [Answer] = []
    private var recorded: [Attempt] = []

    /// An inbox that answers 200 unless told otherwise.
    public init() {}

    /// Makes the next attempts get these answers, in order; afterwards the inbox answers 200.
    public func script(_ answers: [Answer]) {
        lock.withLock { scripted.append(contentsOf: answers) }
    }

    /// Every attempt, in order.
    public var attempts: [Attempt] { lock.withLock { recorded } }

    /// The signed payloads that were accepted (answered 2xx), in order.
    public var delivered: [String] {
        lock.withLock {
            recorded.compactMap { attempt in
                if case .status(let status) = attempt.answer, (200..<300).contains(status) { return attempt.signedPayload }
                return nil
            }
        }
    }

    public func post(_ body: Data, to url: URL) async throws -> Int {
        let signedPayload = ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["signedPayload"] as? String ?? ""
        let answer = lock.withLock { () -> Answer in
            let answer = scripted.isEmpty ? .status(200) : scripted.removeFirst()
            recorded.append(Attempt(signedPayload: signedPayload, url: url, answer: answer))
            return answer
        }
        switch answer {
        case .status(let status): return status
        case .unreachable: throw Unreachable()
        }
    }
}
