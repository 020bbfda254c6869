import NIOConcurrencyHelpers
public import NIOCore
public import NIOHTTP1
import NIOPosix

/// A closed-loop HTTP/1.1 load generator on NIO: `connections` keep-alive connections, each
/// sending its next request as soon as the previous response has ended, until the phase's
/// requests or time run out. Every request's latency is recorded, from the write of its first
/// byte to the end of its response.
///
/// All connections run on one event loop thread of their own, so the client takes at most one
/// core from the server it measures, and far less in practice: a request costs it a few
/// microseconds.
public final class HTTPLoadClient: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let host: String
    private let port: Int

    /// A client of `host:port` with its own single-threaded event loop group.
    public init(host: String, port: Int) {
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.host = host
        self.port = port
    }

    /// Stops the client's event loop.
    public func shutdown() async throws {
        try await group.shutdownGracefully()
    }

    /// One request, ready to send.
    public struct Request: Sendable {
        /// Method, path and headers.
        public var head: HTTPRequestHead
        /// The body, if any.
        public var body: ByteBuffer?

        /// A request with `Host`, and with `Content-Type` and `Content-Length` when there is a body.
        public init(_ method: HTTPMethod, _ uri: String, host: String, bearer: String? = nil, json: String? = nil) {
            var headers = HTTPHeaders([("Host", host)])
            if let bearer { headers.add(name: "Authorization", value: "Bearer " + bearer) }
            if let json {
                headers.add(name: "Content-Type", value: "application/json")
                headers.add(name: "Content-Length", value: String(json.utf8.count))
                body = ByteBuffer(string: json)
            } else {
                body = nil
            }
            head = HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)
        }
    }

    /// What one phase sends: request `i` is `make(i)`, for `i` below `limit`, until `duration` has passed.
    public struct Phase: Sendable {
        /// A name for messages.
        public var name: String
        /// The response status every request must get.
        public var expectedStatus: UInt
        /// The most requests the phase sends.
        public var limit: Int
        /// How long the phase sends new requests; nil for as long as `limit` allows.
        public var duration: TimeAmount?
        /// Keep the bodies of the responses (for set-up phases that read them).
        public var keepBodies: Bool
        /// Request `i`.
        public var make: @Sendable (Int) -> Request

        public init(
            name: String, expectedStatus: UInt = 200, limit: Int, duration: TimeAmount?, keepBodies: Bool = false,
            make: @escaping @Sendable (Int) -> Request
        ) {
            self.name = name
            self.expectedStatus = expectedStatus
            self.limit = limit
            self.duration = duration
            self.keepBodies = keepBodies
            self.make = make
        }
    }

    /// What one phase measured.
    public struct Measurement: Sendable {
        /// Requests answered with the expected status.
        public var completed: Int
        /// From the first request sent to the last response received.
        public var nanoseconds: UInt64
        /// Every request's latency, in nanoseconds, in no particular order.
        public var latencies: [UInt64]
        /// Response bodies by request index, when the phase kept them.
        public var bodies: [Int: ByteBuffer]

        /// Requests per second.
        public var rate: Double { Double(completed) / (Double(nanoseconds) / 1e9) }
    }

    /// A phase that could not produce honest figures: a refused connection, an unexpected status.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs one phase over `connections` new connections and closes them.
    ///
    /// The connections are opened before the clock starts. Any response with another status
    /// than the phase's expected one fails the phase, with that response's body in the message.
    /// - Throws: ``Failure``, or NIO's error when a connection cannot be opened.
    public func run(_ phase: Phase, connections: Int) async throws -> Measurement {
        let dispenser = Dispenser(limit: phase.limit)
        var channels: [any Channel] = []
        var results: [EventLoopFuture<ConnectionTally>] = []
        defer { for channel in channels { channel.close(promise: nil) } }
        for _ in 0..<max(1, connections) {
            let loop = group.next()
            let done = loop.makePromise(of: ConnectionTally.self)
            let channel = try await ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ClosedLoopHandler(phase: phase, dispenser: dispenser, done: done))
                    }
                }
                .connect(host: host, port: port).get()
            channels.append(channel)
            results.append(done.futureResult)
        }
        let start = NIODeadline.now()
        dispenser.start(deadline: phase.duration.map { start + $0 })
        for channel in channels { channel.pipeline.fireUserInboundEventTriggered(ClosedLoopHandler.Start()) }
        var latencies: [UInt64] = []
        var bodies: [Int: ByteBuffer] = [:]
        var end = start
        var failures: [String] = []
        for result in results {
            do {
                let tally = try await result.get()
                latencies += tally.latencies
                bodies.merge(tally.bodies) { first, _ in first }
                end = max(end, tally.lastResponse)
                if let failure = tally.failure { failures.append(failure) }
            } catch {
                failures.append("\(error)")
            }
        }
        if !failures.isEmpty {
            throw Failure(description: "\(phase.name): \(failures.count) connection(s) failed; first: \(failures[0])")
        }
        return Measurement(
            completed: latencies.count, nanoseconds: max(1, end.uptimeNanoseconds - start.uptimeNanoseconds),
            latencies: latencies, bodies: bodies)
    }
}

/// Hands out request indices to the connections of one phase, until the limit or the deadline.
final class Dispenser: Sendable {
    private struct State {
        var next = 0
        var deadline: NIODeadline?
    }

    private let limit: Int
    private let state = NIOLockedValueBox(State())

    init(limit: Int) { self.limit = limit }

    func start(deadline: NIODeadline?) { state.withLockedValue { $0.deadline = deadline } }

    /// The next index, or nil when the phase is over.
    func take(now: NIODeadline) -> Int? {
        state.withLockedValue { state in
            guard state.next < limit else { return nil }
            if let deadline = state.deadline, now >= deadline { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }
}

/// What one connection measured.
struct ConnectionTally: Sendable {
    var latencies: [UInt64] = []
    var bodies: [Int: ByteBuffer] = [:]
    var lastResponse = NIODeadline.uptimeNanoseconds(0)
    var failure: String?
}

/// One connection of the closed loop. Lives on its channel's event loop only.
final class ClosedLoopHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// Sent through the pipeline to start sending.
    struct Start: Sendable {}

    private let phase: HTTPLoadClient.Phase
    private let dispenser: Dispenser
    private let done: EventLoopPromise<ConnectionTally>
    private var tally = ConnectionTally()
    private var current = -1
    private var sentAt = NIODeadline.uptimeNanoseconds(0)
    private var status: UInt = 0
    private var body: ByteBuffer?
    private var finished = false

    init(phase: HTTPLoadClient.Phase, dispenser: Dispenser, done: EventLoopPromise<ConnectionTally>) {
        self.phase = phase
        self.dispenser = dispenser
        self.done = done
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is Start { sendNext(context: context) } else { context.fireUserInboundEventTriggered(event) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status.code
            body = nil
        case .body(var part):
            if phase.keepBodies || status != phase.expectedStatus {
                if body == nil { body = part } else { body!.writeBuffer(&part) }
            }
        case .end:
            let now = NIODeadline.now()
            tally.latencies.append(now.uptimeNanoseconds - sentAt.uptimeNanoseconds)
            tally.lastResponse = now
            if status != phase.expectedStatus {
                let text = body.map { String(buffer: $0) } ?? ""
                finish(failure: "request \(current) answered \(status), not \(phase.expectedStatus): \(text.prefix(300))")
                return
            }
            if phase.keepBodies, let body { tally.bodies[current] = body }
            sendNext(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(failure: "the server closed the connection")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(failure: "\(error)")
        context.close(promise: nil)
    }

    private func sendNext(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        guard let index = dispenser.take(now: now) else {
            finish(failure: nil)
            return
        }
        current = index
        let request = phase.make(index)
        sentAt = NIODeadline.now()
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func finish(failure: String?) {
        guard !finished else { return }
        finished = true
        tally.failure = failure
        done.succeed(tally)
    }
}
