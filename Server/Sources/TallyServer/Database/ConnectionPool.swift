import NIOConcurrencyHelpers

/// A connection a ``ConnectionPool`` hands out: it can tell that it is closed, and be closed.
protocol PoolableConnection: Sendable {
    /// True once the connection can run nothing more: the server or the network closed it, or
    /// ``discard()`` did.
    var isClosed: Bool { get }
    /// Closes the connection; returns when it is closed.
    func discard() async
}

/// Connections opened when needed, up to a maximum, each lent to one task at a time: the most
/// recently returned first, so that a few stay busy and warm while the rest idle out.
///
/// A task that finds every connection lent and the maximum open waits its turn, first come first
/// served; cancelling it takes it out of the line. A connection found closed (by the server, the
/// network, or its borrower after a failure) is dropped, and its place opened again by the next
/// task that needs one. A connection idle for ``idleTimeout`` is closed by the sweep that
/// ``run()`` makes. Opening a connection can fail: the task that asked gets the error, and the
/// next task in line tries in its turn.
///
/// It is a lock and two lists: lending a connection takes the lock once and touches no other
/// thread, where postgres-nio's `PostgresClient` pool cost PostgreSQL's round trip about twice
/// the CPU on this machine (decision 0045).
final class ConnectionPool<Connection: PoolableConnection>: Sendable {
    /// Why a lease failed that never reached a connection.
    enum LeaseError: Error, Equatable {
        /// ``close()`` was called.
        case closed
    }

    /// What a task in line is given when its turn comes.
    private enum Grant: Sendable {
        /// A connection just returned.
        case connection(Connection)
        /// A place to open a connection in: one was dropped, or failed to open.
        case open
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Grant, any Error>
    }

    /// The tasks in line: first in, first out, without moving the rest at each turn.
    private struct Line {
        private var waiters: [Waiter] = []
        private var head = 0

        var count: Int { waiters.count - head }

        mutating func append(_ waiter: Waiter) { waiters.append(waiter) }

        mutating func popFirst() -> Waiter? {
            guard head < waiters.count else { return nil }
            let waiter = waiters[head]
            head += 1
            if head == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                head = 0
            }
            return waiter
        }

        /// Takes out the waiter `id` (a cancelled task), if it is still in line.
        mutating func remove(id: UInt64) -> Waiter? {
            guard let index = waiters[head...].firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index)
        }
    }

    private struct Idle {
        let connection: Connection
        let since: ContinuousClock.Instant
    }

    private struct State {
        /// Oldest returned first: the last is lent next, the first idles out first.
        var idle: [Idle] = []
        /// Tasks waiting for a connection, in the order they came.
        var waiters = Line()
        /// Connections open, lent or being opened.
        var open = 0
        var nextWaiter: UInt64 = 0
        var closed = false
    }

    /// The most connections open at once.
    let maximum: Int
    /// How long a connection stays open unused.
    let idleTimeout: Duration
    private let state = NIOLockedValueBox(State())
    private let opener: @Sendable () async throws -> Connection
    private let clock = ContinuousClock()

    /// - Parameters:
    ///   - maximum: the most connections open at once (at least one).
    ///   - idleTimeout: how long a connection stays open unused.
    ///   - open: opens a new connection.
    init(maximum: Int, idleTimeout: Duration, open: @escaping @Sendable () async throws -> Connection) {
        self.maximum = max(1, maximum)
        self.idleTimeout = idleTimeout
        self.opener = open
    }

    /// Runs `work` with a connection of the pool, and takes the connection back when it returns
    /// or throws (dropping it if it is closed by then).
    /// - Throws: what `work` throws; ``LeaseError/closed`` after ``close()``; `CancellationError`
    ///   when the task is cancelled while it waits; the opener's error when a new connection
    ///   cannot be opened.
    func withConnection<T>(_ work: (Connection) async throws -> T) async throws -> T {
        let connection = try await lease()
        do {
            let value = try await work(connection)
            giveBack(connection)
            return value
        } catch {
            giveBack(connection)
            throw error
        }
    }

    /// Connections open, lent or being opened, and idle: for tests and metrics.
    var counts: (open: Int, idle: Int, waiting: Int) {
        state.withLockedValue { ($0.open, $0.idle.count, $0.waiters.count) }
    }

    /// Closes idle connections past their timeout, until cancelled.
    func run() async {
        // Often enough that a connection closes within about a fifth of its timeout after it.
        let interval = min(max(idleTimeout / 5, .milliseconds(10)), .seconds(30))
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await sweep(at: clock.now)
        }
    }

    /// Closes the connections idle for ``idleTimeout`` or longer at `now`, and drops the idle
    /// ones found closed.
    func sweep(at now: ContinuousClock.Instant) async {
        let deadline = now - idleTimeout
        let expired = state.withLockedValue { state -> [Connection] in
            var expired: [Connection] = []
            state.idle.removeAll { idle in
                guard idle.since <= deadline || idle.connection.isClosed else { return false }
                expired.append(idle.connection)
                return true
            }
            state.open -= expired.count
            return expired
        }
        for connection in expired where !connection.isClosed { await connection.discard() }
    }

    /// Closes the idle connections and refuses every lease from now on; a lent connection is
    /// closed when it comes back.
    func close() async {
        let (idle, waiters) = state.withLockedValue { state in
            state.closed = true
            let idle = state.idle.map(\.connection)
            var waiters: [Waiter] = []
            while let waiter = state.waiters.popFirst() { waiters.append(waiter) }
            state.open -= idle.count
            state.idle.removeAll()
            return (idle, waiters)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: LeaseError.closed) }
        for connection in idle { await connection.discard() }
    }

    // MARK: - Lending

    private enum Step {
        case use(Connection)
        case open
        case wait
    }

    private func lease() async throws -> Connection {
        while true {
            let step = try state.withLockedValue { state throws(LeaseError) -> Step in
                guard !state.closed else { throw .closed }
                while let last = state.idle.popLast() {
                    if !last.connection.isClosed { return .use(last.connection) }
                    // Closed while idle, by the server or the network.
                    state.open -= 1
                }
                guard state.open < maximum else { return .wait }
                state.open += 1
                return .open
            }
            let grant: Grant
            switch step {
            case .use(let connection): return connection
            case .open: grant = .open
            case .wait: grant = try await waitForTurn()
            }
            switch grant {
            case .open:
                return try await openConnection()
            case .connection(let connection):
                if !connection.isClosed { return connection }
                freePlace()
            }
        }
    }

    /// Opens a connection in a place already counted in `open`, which is freed when it fails.
    private func openConnection() async throws -> Connection {
        do {
            return try await opener()
        } catch {
            freePlace()
            throw error
        }
    }

    /// A counted place is free again: the next task in line may open a connection there.
    private func freePlace() {
        let waiter = state.withLockedValue { state -> Waiter? in
            if !state.closed, let waiter = state.waiters.popFirst() { return waiter }
            state.open -= 1
            return nil
        }
        waiter?.continuation.resume(returning: .open)
    }

    private func giveBack(_ connection: Connection) {
        if connection.isClosed {
            freePlace()
            return
        }
        let (waiter, closeIt) = state.withLockedValue { state -> (Waiter?, Bool) in
            if state.closed {
                state.open -= 1
                return (nil, true)
            }
            if let waiter = state.waiters.popFirst() { return (waiter, false) }
            state.idle.append(Idle(connection: connection, since: clock.now))
            return (nil, false)
        }
        waiter?.continuation.resume(returning: .connection(connection))
        if closeIt {
            Task { await connection.discard() }
        }
    }

    private func waitForTurn() async throws -> Grant {
        let id = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                // Between the first look and this one a connection may have come back.
                let now = state.withLockedValue { state -> Result<Grant, any Error>? in
                    if state.closed { return .failure(LeaseError.closed) }
                    // Cancelled before it stood in line: the handler found nothing to remove.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let last = state.idle.popLast() { return .success(.connection(last.connection)) }
                    if state.open < maximum {
                        state.open += 1
                        return .success(.open)
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> Waiter? in
                state.waiters.remove(id: id)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
