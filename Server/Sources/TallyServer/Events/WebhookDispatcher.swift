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

    /// A client for deliveries: no redirects, as many connections to one receiver as the worker
    /// sends to it at once.
    static func client(perEndpoint: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)), decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, perEndpoint)
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
///
/// Deliveries flow through a window of `concurrency` requests: a slot that frees is filled by
/// the next claim, and each attempt is recorded as soon as it ends, with whatever other
/// attempts ended meanwhile (one transaction for those, not one per attempt). A slow answer
/// holds its own slot only; one endpoint holds at most `perEndpoint` slots.
struct WebhookDispatcher: Sendable {
    let storage: WebhookStore
    let transport: any WebhookTransport
    let policy: WebhookRetryPolicy
    let timeout: TimeInterval
    let now: @Sendable () -> Date
    /// How long a claim lasts (longer than `timeout`).
    var lease: TimeInterval?
    /// Requests in flight at once, over all endpoints.
    var concurrency = 64
    /// Requests in flight at once to one endpoint.
    var perEndpoint = 32
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    struct Report: Equatable, Sendable {
        var delivered = 0
        var failedAttempts = 0

        mutating func add(_ other: Report) {
            delivered += other.delivered
            failedAttempts += other.failedAttempts
        }
    }

    /// Sends what is due until a claim finds nothing and nothing is in flight; returns what
    /// happened (nothing: nothing was due).
    func runOnce() async throws -> Report {
        try await run(pause: nil, stop: { false })
    }

    /// Keeps the window full: claims as slots free, sends, records each attempt as it ends.
    ///
    /// - Parameters:
    ///   - pause: waited after a claim that found less than it asked for, before claiming again
    ///     (the poll interval); nil to return once nothing is due and nothing is in flight.
    ///   - stop: checked before each claim; once true, what is in flight is finished and
    ///     recorded, and the run returns (a graceful shutdown).
    ///   - recorded: told what each record committed (for the metrics).
    /// - Throws: the first failed claim or record, after what was in flight was finished and
    ///   recorded (a failed record leaves its claims to expire: those events are sent again).
    func run(
        pause: (@Sendable () async -> Void)?, stop: @escaping @Sendable () -> Bool, recorded: @escaping @Sendable (Report) -> Void = { _ in }
    ) async throws -> Report {
        enum Step: Sendable {
            case claimed(Result<[ClaimedDelivery], any Error>, asked: Int)
            case sent(RecordedAttempt, endpoint: String)
            case recorded(Result<Report, any Error>)
            case paused
        }
        let lease = lease ?? timeout + 30
        let concurrency = max(1, concurrency)
        let perEndpoint = max(1, min(perEndpoint, concurrency))
        // Claims wait for a few slots to free rather than take one at a time: a claim is a
        // write transaction, and one per delivery would set the pace.
        let claimStep = max(1, perEndpoint / 4)
        let (report, failure) = await withTaskGroup(of: Step.self) { group -> (Report, (any Error)?) in
            var inFlight: [String: Int] = [:]
            var sending = 0
            var freed = concurrency
            var claiming = false
            var mayClaim = true  // at the start, after a pause, and when the window emptied
            var pausing = false
            var finished = false
            var done: [RecordedAttempt] = []
            var recording = false
            var failure: (any Error)?
            var report = Report()

            func advance() {
                if !recording, !done.isEmpty, !Task.isCancelled {
                    recording = true
                    let attempts = done
                    done = []
                    group.addTask {
                        do {
                            try await storage.recordAttempts(attempts)
                            var report = Report()
                            for attempt in attempts {
                                if attempt.result.delivered { report.delivered += 1 } else { report.failedAttempts += 1 }
                            }
                            return .recorded(.success(report))
                        } catch {
                            return .recorded(.failure(error))
                        }
                    }
                }
                if finished || failure != nil || Task.isCancelled || stop() {
                    finished = true
                    return
                }
                let free = concurrency - sending
                guard !claiming, free > 0, mayClaim || freed >= claimStep else { return }
                claiming = true
                mayClaim = false
                freed = 0
                let busy = inFlight
                group.addTask {
                    do {
                        return .claimed(
                            .success(try await storage.claimDeliveries(limit: free, lease: lease, busy: busy, perEndpoint: perEndpoint)), asked: free)
                    } catch {
                        return .claimed(.failure(error), asked: free)
                    }
                }
            }

            advance()
            while let step = await group.next() {
                switch step {
                case .claimed(.success(let claimed), let asked):
                    claiming = false
                    for delivery in claimed {
                        inFlight[delivery.endpointID, default: 0] += 1
                        sending += 1
                        group.addTask { .sent(await send(delivery), endpoint: delivery.endpointID) }
                    }
                    if claimed.count < asked {
                        // Less was due than there was room for: wait for the poll, or for
                        // the window to empty; in a drain with nothing in flight, done.
                        if let pause, !pausing {
                            pausing = true
                            group.addTask {
                                await pause()
                                return .paused
                            }
                        } else if pause == nil && sending == 0 {
                            finished = true
                        }
                    }
                case .claimed(.failure(let error), _):
                    claiming = false
                    failure = failure ?? error
                case .sent(let attempt, let endpoint):
                    sending -= 1
                    freed += 1
                    inFlight[endpoint, default: 1] -= 1
                    if inFlight[endpoint] == 0 { inFlight[endpoint] = nil }
                    if sending == 0 { mayClaim = true }
                    // Cut off by a hard shutdown: what came back is not known for sure, so it
                    // is not recorded, and the claim runs out for another worker to send again.
                    if !Task.isCancelled { done.append(attempt) }
                case .recorded(.success(let committed)):
                    recording = false
                    report.add(committed)
                    recorded(committed)
                case .recorded(.failure(let error)):
                    recording = false
                    failure = failure ?? error
                case .paused:
                    pausing = false
                    mayClaim = true
                }
                advance()
                if finished && sending == 0 && !recording && !claiming && (done.isEmpty || Task.isCancelled) {
                    // A pause still running is not waited for.
                    group.cancelAll()
                    break
                }
            }
            return (report, failure)
        }
        if let failure { throw failure }
        return report
    }

    /// Sends one delivery; what happened and what follows from it.
    func send(_ delivery: ClaimedDelivery) async -> RecordedAttempt {
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
