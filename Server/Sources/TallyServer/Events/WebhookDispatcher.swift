import AsyncHTTPClient
public import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TallyCore

/// When to try a failed delivery again: the Standard Webhooks schedule (10 attempts: at once,
/// then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h), each pause up to 10 %
/// longer or shorter at random so that failed deliveries do not return in step.
public struct WebhookRetryPolicy: Sendable, Hashable {
    /// The pauses after the first, second, … failed attempt; after the last, the delivery fails.
    public var delays: [TimeInterval]
    /// The fraction by which a pause varies either way.
    public var jitter: Double

    /// - Parameters:
    ///   - delays: the pauses between attempts, in seconds.
    ///   - jitter: 0 for exact pauses.
    public init(delays: [TimeInterval], jitter: Double = 0.1) {
        self.delays = delays
        self.jitter = jitter
    }

    /// The specification's schedule.
    public static let standard = WebhookRetryPolicy(delays: [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400])

    /// The pause after the `attempts`-th failed attempt (1-based), at least what the receiver
    /// asked for with `Retry-After` (up to a day); nil when no try is left.
    func delay(afterAttempts attempts: Int64, retryAfter: TimeInterval?, random: Double) -> TimeInterval? {
        guard attempts >= 1, attempts <= Int64(delays.count) else { return nil }
        let base = delays[Int(attempts) - 1] * (1 + jitter * (2 * random - 1))
        // A receiver's header is taken only as a finite number of seconds within a day.
        guard let retryAfter, retryAfter.isFinite, retryAfter > base else { return base }
        return min(retryAfter, 86_400)
    }
}

/// Sends one webhook request. The real one is ``HTTPWebhookTransport``; tests use the same
/// one against a local receiver.
protocol WebhookTransport: Sendable {
    /// Posts `body`; never throws: what went wrong is in the result.
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async -> WebhookResponse
}

/// What a receiver answered, or why nothing came.
struct WebhookResponse: Sendable {
    var statusCode: Int?
    var retryAfter: TimeInterval?
    var excerpt: String?
    var error: String?

    init(statusCode: Int?, retryAfter: TimeInterval? = nil, excerpt: String? = nil, error: String? = nil) {
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.excerpt = excerpt
        self.error = error
    }
}

/// Posts with AsyncHTTPClient: no redirects followed (a 3xx is a failure), the answer read up
/// to 1 kB, the whole exchange (the answer's body too) within the timeout.
struct HTTPWebhookTransport: WebhookTransport {
    let client: HTTPClient

    /// A client for deliveries: no redirects, as many connections to one receiver as a batch sends at once.
    static func client(batch: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)), decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, batch)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async -> WebhookResponse {
        // The client's deadline ends at the answer's head; a receiver that then trickles its
        // body must not hold the worker, so the whole exchange races the timeout.
        await withTaskGroup(of: WebhookResponse.self) { group in
            group.addTask { await exchange(url: url, headers: headers, body: body, timeout: timeout) }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                return WebhookResponse(statusCode: nil, error: "timed out")
            }
            let first = await group.next() ?? WebhookResponse(statusCode: nil, error: "timed out")
            group.cancelAll()
            return first
        }
    }

    private func exchange(url: String, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async -> WebhookResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            var excerpt: [UInt8] = []
            for try await chunk in response.body {
                excerpt.append(contentsOf: chunk.readableBytesView.prefix(1024 - excerpt.count))
                if excerpt.count >= 1024 { break }
            }
            let retryAfter = response.headers.first(name: "retry-after").flatMap(TimeInterval.init)
            return WebhookResponse(
                statusCode: Int(response.status.code), retryAfter: retryAfter, excerpt: Self.excerpt(excerpt), error: nil)
        } catch {
            return WebhookResponse(statusCode: nil, retryAfter: nil, excerpt: nil, error: Self.describe(error))
        }
    }

    /// The answer's first bytes as text to keep: invalid UTF-8 replaced, control characters
    /// (NUL, which PostgreSQL refuses in text, among them) dropped but for line breaks and tabs.
    static func excerpt(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar.properties.generalCategory != .control || scalar == "\n" || scalar == "\t" {
            kept.append(scalar)
        }
        return kept.isEmpty ? nil : String(kept)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout { return "timed out" }
            return "\(error)"
        }
        return String(describing: error).prefix(300).description
    }
}

/// Delivers the outbox: claims due deliveries, posts each event signed by the Standard
/// Webhooks scheme, records every attempt and schedules the next. Any number of server
/// instances may run one: a delivery is claimed by one worker at a time (its lease outlasts
/// the request's timeout), and a worker that dies leaves its claims to expire and be taken
/// again. A receiver may see an event more than once (the request went out, the record of it
/// did not): it keeps `webhook-id`, which never changes, to ignore repeats.
struct WebhookDispatcher: Sendable {
    let storage: any WebhookStorage
    let transport: any WebhookTransport
    let policy: WebhookRetryPolicy
    let timeout: TimeInterval
    let now: @Sendable () -> Date
    /// How long a claim lasts (longer than `timeout`).
    var lease: TimeInterval?
    /// Deliveries claimed, and so sent at once, per round.
    var batch = 32
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    struct Report: Equatable, Sendable {
        var delivered = 0
        var failedAttempts = 0
    }

    /// Claims and sends one batch; returns what happened (nothing claimed: nothing is due).
    func runOnce() async throws -> Report {
        let claimed = try await storage.claimDeliveries(limit: batch, lease: lease ?? timeout + 30)
        guard !claimed.isEmpty else { return Report() }
        let attempts = try await withThrowingTaskGroup(of: RecordedAttempt.self) { group in
            for delivery in claimed { group.addTask { try await send(delivery) } }
            var attempts: [RecordedAttempt] = []
            for try await attempt in group { attempts.append(attempt) }
            return attempts
        }
        // Cut off by a hard shutdown: what came back is not known for sure, so nothing is
        // recorded, and the claims run out for another worker to send again.
        if Task.isCancelled { return Report() }
        // One transaction for the batch: a crash before it commits sends the batch again
        // (receivers keep webhook-id), and a durable commit per delivery would be the bottleneck.
        try await storage.recordAttempts(attempts)
        var report = Report()
        for attempt in attempts {
            if attempt.result.delivered { report.delivered += 1 } else { report.failedAttempts += 1 }
        }
        return report
    }

    /// Sends one delivery; what happened and what follows from it.
    func send(_ delivery: ClaimedDelivery) async throws -> RecordedAttempt {
        let body = delivery.body
        let startedAt = now()
        let timestamp = Int64(startedAt.timeIntervalSince1970)
        let headers = [
            ("content-type", "application/json"),
            ("user-agent", "Tally-Webhooks/1"),
            ("webhook-id", delivery.eventID),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", WebhookSignature.header(id: delivery.eventID, timestamp: timestamp, body: body, secrets: delivery.secrets)),
        ]
        let started = ContinuousClock.now
        let response = await transport.post(url: delivery.url, headers: headers, body: body, timeout: timeout)
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        let result = AttemptResult(
            startedAt: startedAt, statusCode: response.statusCode, latencyMilliseconds: milliseconds, excerpt: response.excerpt, error: response.error)
        let gone = response.statusCode == 410
        let retry = result.delivered || gone ? nil : policy.delay(afterAttempts: delivery.attempts + 1, retryAfter: response.retryAfter, random: random())
        return RecordedAttempt(delivery: delivery, result: result, retryAfter: retry, disable: gone ? "the endpoint answered 410 Gone" : nil)
    }

}
