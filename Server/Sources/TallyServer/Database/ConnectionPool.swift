import NIOConcurrencyHelpers
import NIOCore

/// A connection a ``ConnectionPool`` hands out: it can tell that it is closed, be closed, and be
/// asked whether the server still answers on it.
protocol PoolableConnection: Sendable {
    /// True once the connection can run nothing more: the server or the network closed it, or
    /// ``discard()`` did.
    var isClosed: Bool { get }
    /// Closes the connection; returns when it is closed.
    func discard() async
    /// Asks the server for a trivial answer; closes the connection and answers false when none
    /// comes within `timeout`.
    func check(timeout: Duration) async -> Bool
}

/// Connections opened when needed, up to a maximum, each lent to one task at a time: the most
/// recently returned first, so that a few stay busy and warm while the rest idle out.
///
/// A task that finds every connection lent and the maximum open waits its turn, first come first
/// served; cancelling it takes it out of the line. A connection found closed (by the server, the
/// network, or its borrower after a failure) is dropped, and a new one opened in its place when a
/// task needs it. Opening can fail: the task that asked gets the error, and so does every task in
/// line when no open connection is left to serve it (others may still be opening).
///
/// ``run()`` sweeps the idle connections every few seconds: it closes those idle for
/// ``idleTimeout``, and checks those that have not been used for ``keepAlive`` with a trivial
/// statement, so that a connection a firewall or a proxy dropped without a word is found there,
/// not by the next request, which would wait minutes for TCP to give up.
///
/// Lending a connection takes one lock and touches no other thread. postgres-nio's
/// `PostgresClient` pool, with its timers set at every return and cancelled at every lease, cost
/// a `SELECT 1` twice the CPU on the benchmarks' machine (decision 0045).
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

    private struct Idle {
        let connection: Connection
        /// When it was last given back by a task: what the idle timeout counts from.
        let since: ContinuousClock.Instant
        /// When it last answered: given back, or checked by the sweep.
        let checked: ContinuousClock.Instant
    }

    private struct State {
        /// Ordered by ``Idle/since``: the last is lent next, the first idles out first.
        var idle: [Idle] = []
        /// Tasks waiting for a connection, in the order they came.
        var waiters = CircularBuffer<Waiter>()
        /// Connections open, lent, being checked or being opened.
        var open = 0
        /// Of those, the ones being opened.
        var opening = 0
        var nextWaiter: UInt64 = 0
        var closed = false
    }

    /// The most connections open at once.
    let maximum: Int
    /// How long a connection stays open unused (at least a second).
    let idleTimeout: Duration
    /// How long a connection idles before the sweep checks it.
    let keepAlive: Duration
    /// How long a check may take before its connection is closed.
    let checkTimeout: Duration
    private let state = NIOLockedValueBox(State())
    private let opener: @Sendable () async throws -> Connection
    private let clock = ContinuousClock()

    /// - Parameters:
    ///   - maximum: the most connections open at once (at least one).
    ///   - idleTimeout: how long a connection stays open unused.
    ///   - keepAlive: how long a connection idles before it is checked.
    ///   - checkTimeout: how long a check may take.
    ///   - open: opens a new connection.
    init(
        maximum: Int, idleTimeout: Duration, keepAlive: Duration = .seconds(30), checkTimeout: Duration = .seconds(10),
        open: @escaping @Sendable () async throws -> Connection
    ) {
        self.maximum = max(1, maximum)
        self.idleTimeout = max(idleTimeout, .seconds(1))
        self.keepAlive = max(keepAlive, .seconds(1))
        self.checkTimeout = checkTimeout
        self.opener = open
    }

    /// Runs `work` with a connection of the pool, and takes the connection back when it returns
    /// or throws (dropping it if it is closed by then).
    /// - Throws: what `work` throws; ``LeaseError/closed`` after ``close()``; `CancellationError`
    ///   when the task is cancelled while it waits; the opener's error when a new connection
    ///   cannot be opened.
    func withConnection<T>(_ work: (Connection) async throws -> T) async throws -> T {
        try await withConnection { connection, _ in try await work(connection) }
    }

    /// The same, telling `work` whether the connection served before (true) or was opened for
    /// this task (false).
    func withConnection<T>(_ work: (Connection, _ reused: Bool) async throws -> T) async throws -> T {
        let (connection, reused) = try await lease()
        defer { giveBack(connection) }
        return try await work(connection, reused)
    }

    /// Connections open (lent, idle, being checked or being opened), idle, and tasks in line.
    var counts: (open: Int, idle: Int, waiting: Int) {
        state.withLockedValue { ($0.open, $0.idle.count, $0.waiters.count) }
    }

    /// Sweeps the idle connections (``sweep(at:)``) every few seconds, until cancelled.
    func run() async {
        let interval = min(max(min(idleTimeout, keepAlive) / 5, .seconds(1)), .seconds(30))
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await sweep(at: clock.now)
        }
    }

    /// Closes the connections idle for ``idleTimeout`` or longer at `now`, drops those found
    /// closed, and checks those that last answered ``keepAlive`` or longer before `now`.
    func sweep(at now: ContinuousClock.Instant) async {
        let (expired, due) = state.withLockedValue { state -> ([Connection], [Idle]) in
            var expired: [Connection] = []
            var due: [Idle] = []
            state.idle.removeAll { idle in
                if idle.since <= now - idleTimeout || idle.connection.isClosed {
                    expired.append(idle.connection)
                    return true
                }
                guard idle.checked <= now - keepAlive else { return false }
                due.append(idle)  // still counted as open while it is checked
                return true
            }
            state.open -= expired.count
            return (expired, due)
        }
        for connection in expired where !connection.isClosed { await connection.discard() }
        await withTaskGroup(of: Void.self) { group in
            for idle in due {
                group.addTask {
                    if await idle.connection.check(timeout: self.checkTimeout) {
                        self.putBack(idle.connection, since: idle.since, checked: now)
                    } else {
                        self.freePlace()
                    }
                }
            }
        }
    }

    /// Closes the idle connections and refuses every lease from now on. A connection lent out
    /// is closed when its task gives it back.
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

    private func lease() async throws -> (Connection, reused: Bool) {
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
        switch step {
        case .use(let connection):
            return (connection, true)
        case .open:
            return (try await openConnection(), false)
        case .wait:
            switch try await waitForTurn() {
            case .connection(let connection) where !connection.isClosed:
                return (connection, true)
            case .connection, .open:
                // A place counted for this task: a closed connection's, or one freed.
                return (try await openConnection(), false)
            }
        }
    }

    /// Opens a connection in a place already counted in `open`. A cancelled task frees the
    /// place for the next in line; a failure to open is ``openFailed(_:)``.
    private func openConnection() async throws -> Connection {
        if Task.isCancelled {
            freePlace()
            throw CancellationError()
        }
        state.withLockedValue { $0.opening += 1 }
        let connection: Connection
        do {
            connection = try await opener()
        } catch is CancellationError {
            state.withLockedValue { $0.opening -= 1 }
            freePlace()
            throw CancellationError()
        } catch {
            openFailed(error)
            throw error
        }
        state.withLockedValue { $0.opening -= 1 }
        return connection
    }

    /// A place whose connection could not be opened: the next task in line tries in its turn
    /// while an open connection is left to serve the line; when none is, every task in line
    /// fails too (the server is down or refuses: each would wait for its own attempt to fail).
    private func openFailed(_ error: any Error) {
        let (next, failed) = state.withLockedValue { state -> (Waiter?, [Waiter]) in
            state.opening -= 1
            guard !state.closed, !state.waiters.isEmpty else {
                state.open -= 1
                return (nil, [])
            }
            // Open, lent or idle: neither this place nor one still being opened.
            let established = state.open - 1 - state.opening
            if established > 0 { return (state.waiters.popFirst(), []) }
            state.open -= 1
            var failed: [Waiter] = []
            while let waiter = state.waiters.popFirst() { failed.append(waiter) }
            return (nil, failed)
        }
        next?.continuation.resume(returning: .open)
        for waiter in failed { waiter.continuation.resume(throwing: error) }
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
        let now = clock.now
        putBack(connection, since: now, checked: now)
    }

    /// Hands `connection` to the first task in line, or keeps it idle in its place by `since`.
    private func putBack(_ connection: Connection, since: ContinuousClock.Instant, checked: ContinuousClock.Instant) {
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
            let index = state.idle.lastIndex(where: { $0.since <= since }).map { $0 + 1 } ?? 0
            state.idle.insert(Idle(connection: connection, since: since, checked: checked), at: index)
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
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
