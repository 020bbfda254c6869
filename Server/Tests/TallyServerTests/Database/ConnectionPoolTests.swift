import NIOConcurrencyHelpers
import Testing

@testable import TallyServer

/// The pool of PostgreSQL's connections, with connections that only say whether they are
/// closed: how many it opens, in which order it lends them and serves the tasks that wait, and
/// what it does with a connection that closed, one that failed to open, one idle too long, and
/// after ``ConnectionPool/close()``.
struct ConnectionPoolTests {
    final class FakeConnection: PoolableConnection {
        let id: Int
        private let state = NIOLockedValueBox((closed: false, silent: false, checks: 0))
        init(id: Int) { self.id = id }
        var isClosed: Bool { state.withLockedValue { $0.closed } }
        var checks: Int { state.withLockedValue { $0.checks } }
        /// Stops answering, as behind a firewall that dropped it: only a check finds out.
        func goSilent() { state.withLockedValue { $0.silent = true } }
        func discard() async { state.withLockedValue { $0.closed = true } }
        func check(timeout: Duration) async -> Bool {
            state.withLockedValue { state in
                state.checks += 1
                if state.silent { state.closed = true }
                return !state.closed
            }
        }
    }

    /// Opens numbered connections, or fails while `failing` is set; takes 100 ms to answer
    /// while `slow` is set.
    final class Opener: Sendable {
        private let state = NIOLockedValueBox((opened: [FakeConnection](), failing: false, slow: false, attempts: 0))
        struct Refused: Error {}

        var opened: [FakeConnection] { state.withLockedValue { $0.opened } }
        var attempts: Int { state.withLockedValue { $0.attempts } }
        func fail(_ failing: Bool) { state.withLockedValue { $0.failing = failing } }
        func slow(_ slow: Bool) { state.withLockedValue { $0.slow = slow } }

        func open() async throws -> FakeConnection {
            let slow = state.withLockedValue { state in
                state.attempts += 1
                return state.slow
            }
            if slow { try await Task.sleep(for: .milliseconds(100)) }
            return try state.withLockedValue { state in
                if state.failing { throw Refused() }
                let connection = FakeConnection(id: state.opened.count + 1)
                state.opened.append(connection)
                return connection
            }
        }
    }

    static func pool(maximum: Int, idleTimeout: Duration = .seconds(60)) -> (ConnectionPool<FakeConnection>, Opener) {
        let opener = Opener()
        return (ConnectionPool(maximum: maximum, idleTimeout: idleTimeout) { try await opener.open() }, opener)
    }

    /// Waits until `condition` holds, for at most ten seconds (the whole suite may run at once).
    static func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        if !condition() { Issue.record("still not so after ten seconds", sourceLocation: sourceLocation) }
    }

    /// A connection lent to a task that keeps it until ``giveBack()``.
    struct Lent {
        let task: Task<Int, any Error>
        let release: AsyncStream<Void>.Continuation

        /// Ends the task, which gives the connection back; returns the connection's id.
        func giveBack() async throws -> Int {
            release.finish()
            return try await task.value
        }
    }

    /// Lends a connection of `pool` to a task that keeps it until it is given back.
    static func lend(_ pool: ConnectionPool<FakeConnection>) -> Lent {
        let (stream, release) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await pool.withConnection { connection in
                for await _ in stream { break }
                return connection.id
            }
        }
        return Lent(task: task, release: release)
    }

    /// Lends `count` connections of an empty pool at once, and waits until all are lent.
    static func lendAll(_ count: Int, of pool: ConnectionPool<FakeConnection>) async throws -> [Lent] {
        let lent = (0..<count).map { _ in lend(pool) }
        try await eventually { pool.counts.open == count && pool.counts.idle == 0 }
        return lent
    }

    /// `count` tasks that ask for a connection one after another, each in line before the next
    /// comes; each answers its connection's id.
    static func line(_ count: Int, of pool: ConnectionPool<FakeConnection>) async throws -> [Task<Int, any Error>] {
        var line: [Task<Int, any Error>] = []
        for _ in 0..<count {
            let waiting = pool.counts.waiting
            line.append(Task { try await pool.withConnection { $0.id } })
            try await eventually { pool.counts.waiting == waiting + 1 }
        }
        return line
    }

    @Test func opensOnlyWhatIsNeededAndLendsTheLastReturnedFirst() async throws {
        let (pool, opener) = Self.pool(maximum: 4)
        // One after another: one connection does.
        for _ in 0..<5 { try await pool.withConnection { _ in } }
        #expect(opener.opened.count == 1)
        // Two at once: a second one, and both stay open.
        let first = Self.lend(pool)
        try await Self.eventually { pool.counts.idle == 0 }
        let second = Self.lend(pool)
        try await Self.eventually { pool.counts.open == 2 }
        let secondID = try await second.giveBack()
        #expect(secondID == 2)
        let firstID = try await first.giveBack()
        #expect(firstID == 1)
        #expect(pool.counts.open == 2 && pool.counts.idle == 2)
        // The one given back last is lent next, again and again.
        for _ in 0..<3 {
            let id = try await pool.withConnection { $0.id }
            #expect(id == 1)
        }
        #expect(opener.opened.count == 2)
    }

    @Test func tasksBeyondTheMaximumWaitAndAreServedInTurn() async throws {
        let (pool, opener) = Self.pool(maximum: 2)
        let lent = try await Self.lendAll(2, of: pool)
        // Three more tasks come, one after another, and wait.
        let order = NIOLockedValueBox([Int]())
        var waiting: [Task<Int, any Error>] = []
        for index in 0..<3 {
            waiting.append(
                Task {
                    try await pool.withConnection { connection in
                        order.withLockedValue { $0.append(index) }
                        return connection.id
                    }
                })
            try await Self.eventually { pool.counts.waiting == index + 1 }
        }
        #expect(order.withLockedValue { $0 }.isEmpty)
        // One connection comes back, and goes from each task in line to the next.
        _ = try await lent[0].giveBack()
        for task in waiting { _ = try await task.value }
        #expect(order.withLockedValue { $0 } == [0, 1, 2])
        _ = try await lent[1].giveBack()
        #expect(opener.opened.count == 2)
        #expect(pool.counts.waiting == 0)
    }

    @Test func aCancelledWaiterLeavesTheLine() async throws {
        let (pool, _) = Self.pool(maximum: 1)
        let holding = try await Self.lendAll(1, of: pool)[0]
        let line = try await Self.line(2, of: pool)
        let (cancelled, next) = (line[0], line[1])
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(pool.counts.waiting == 1)
        _ = try await holding.giveBack()
        let served = try await next.value
        #expect(served == 1)
    }

    @Test func aClosedConnectionIsDroppedAndItsPlaceOpenedAgain() async throws {
        let (pool, opener) = Self.pool(maximum: 1)
        // Closed by its borrower (a failed rollback) before it comes back.
        try await pool.withConnection { await $0.discard() }
        #expect(pool.counts.open == 0)
        let reopened = try await pool.withConnection { $0.id }
        #expect(reopened == 2)
        // Closed while idle (by the server or the network).
        await opener.opened[1].discard()
        let replaced = try await pool.withConnection { $0.id }
        #expect(replaced == 3)
        #expect(pool.counts.open == 1)
        // Closed while a task waits for it: the task opens a new one in its place.
        let (stream, release) = AsyncStream<Void>.makeStream()
        let holding = Task {
            try await pool.withConnection { connection in
                for await _ in stream { break }
                await connection.discard()
            }
        }
        try await Self.eventually { pool.counts.idle == 0 }
        let waiting = try await Self.line(1, of: pool)[0]
        release.finish()
        try await holding.value
        let openedInItsPlace = try await waiting.value
        #expect(openedInItsPlace == 4)
        #expect(pool.counts.open == 1)
    }

    @Test func aConnectionThatFailsToOpenFailsItsTaskAndFreesItsPlace() async throws {
        let (pool, opener) = Self.pool(maximum: 1)
        opener.fail(true)
        await #expect(throws: Opener.Refused.self) { try await pool.withConnection { _ in } }
        #expect(pool.counts.open == 0)
        opener.fail(false)
        let openedLater = try await pool.withConnection { $0.id }
        #expect(openedLater == 1)
    }

    /// A place whose connection cannot be opened goes to the next task in line while other
    /// connections are left to serve the line; with none left, every task in line fails at once
    /// rather than each waiting for its own attempt to fail.
    @Test func whenOpeningFailsTheLineIsServedOrFailedAtOnce() async throws {
        let (pool, opener) = Self.pool(maximum: 2)
        let lent = try await Self.lendAll(2, of: pool)
        let waiting = try await Self.line(3, of: pool)
        // The server closes the first lent connection; its place goes to the first in line,
        // whose attempt to open fails: the second in line tries in turn, as one is still open.
        opener.fail(true)
        await opener.opened[0].discard()
        _ = try await lent[0].giveBack()
        await #expect(throws: Opener.Refused.self) { try await waiting[0].value }
        await #expect(throws: Opener.Refused.self) { try await waiting[1].value }
        await #expect(throws: Opener.Refused.self) { try await waiting[2].value }
        #expect(pool.counts.open == 1 && pool.counts.waiting == 0)
        // The other connection is still lent: it serves the line afterwards.
        _ = try await lent[1].giveBack()
        opener.fail(false)
        let id = try await pool.withConnection { $0.id }
        #expect(id == 2)
    }

    @Test func whenOpeningFailsWithNoConnectionLeftEveryTaskInLineFails() async throws {
        let (pool, opener) = Self.pool(maximum: 1)
        let holding = try await Self.lendAll(1, of: pool)[0]
        let line = try await Self.line(2, of: pool)
        let (first, second) = (line[0], line[1])
        // The only connection goes: the first in line fails to open one, and the second, with no
        // connection left to wait for, fails with it.
        opener.fail(true)
        await opener.opened[0].discard()
        _ = try await holding.giveBack()
        await #expect(throws: Opener.Refused.self) { try await first.value }
        await #expect(throws: Opener.Refused.self) { try await second.value }
        #expect(pool.counts.open == 0 && pool.counts.waiting == 0)
        opener.fail(false)
        let id = try await pool.withConnection { $0.id }
        #expect(id == 2)
    }

    /// With two places and both connections gone, the first failure to open fails the rest of
    /// the line at once, while the other place is still opening: no task waits for an attempt of
    /// its own.
    @Test func whenNoConnectionIsLeftTheLineFailsWithoutMoreAttempts() async throws {
        let (pool, opener) = Self.pool(maximum: 2)
        let lent = try await Self.lendAll(2, of: pool)
        let waiting = try await Self.line(3, of: pool)
        opener.fail(true)
        opener.slow(true)
        for connection in opener.opened { await connection.discard() }
        for connection in lent { _ = try await connection.giveBack() }
        for task in waiting {
            await #expect(throws: Opener.Refused.self) { try await task.value }
        }
        // Two attempts for the two places, none for the third task.
        #expect(opener.attempts == 4)
        #expect(pool.counts.open == 0 && pool.counts.waiting == 0)
    }

    /// A task cancelled while it opens a connection frees its place for the next in line, which
    /// is served, not failed with the cancellation.
    @Test func aTaskCancelledWhileOpeningPassesItsPlaceOn() async throws {
        let (pool, opener) = Self.pool(maximum: 1)
        let holding = try await Self.lendAll(1, of: pool)[0]
        let line = try await Self.line(2, of: pool)
        let (cancelled, next) = (line[0], line[1])
        opener.slow(true)
        await opener.opened[0].discard()
        _ = try await holding.giveBack()
        try await Self.eventually { opener.attempts == 2 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        let id = try await next.value
        #expect(id == 2)
        #expect(pool.counts.open == 1)
    }

    @Test func quietConnectionsAreCheckedAndTheSilentOnesDropped() async throws {
        let (pool, opener) = Self.pool(maximum: 2)
        let lent = try await Self.lendAll(2, of: pool)
        for connection in lent { _ = try await connection.giveBack() }
        let returned = ContinuousClock.now
        // Both idle; within the keep-alive nothing is checked.
        await pool.sweep(at: returned + .seconds(29))
        #expect(opener.opened.map(\.checks) == [0, 0])
        // A firewall drops one without a word: only the check after 30 s finds it.
        opener.opened[0].goSilent()
        #expect(!opener.opened[0].isClosed)
        await pool.sweep(at: returned + .seconds(31))
        #expect(opener.opened.map(\.checks) == [1, 1])
        #expect(opener.opened[0].isClosed && !opener.opened[1].isClosed)
        #expect(pool.counts.open == 1 && pool.counts.idle == 1)
        // A check does not make a connection used: its idle timeout still counts from its return.
        await pool.sweep(at: returned + .seconds(45))
        #expect(opener.opened[1].checks == 1)
        await pool.sweep(at: ContinuousClock.now + .seconds(61))
        #expect(opener.opened[1].isClosed && pool.counts.open == 0)
    }

    @Test func closingFailsTheTasksInLine() async throws {
        let (pool, _) = Self.pool(maximum: 1)
        let holding = try await Self.lendAll(1, of: pool)[0]
        let waiting = try await Self.line(1, of: pool)[0]
        await pool.close()
        await #expect(throws: ConnectionPool<FakeConnection>.LeaseError.closed) { try await waiting.value }
        _ = try await holding.giveBack()
        #expect(pool.counts.open == 0)
    }

    /// Many tasks at once, some cancelled, some finding their connection closed: never more
    /// connections open or lent than the maximum, and every place accounted for at the end.
    @Test func manyTasksNeverOpenMoreThanTheMaximum() async throws {
        let (pool, opener) = Self.pool(maximum: 4)
        let lent = NIOLockedValueBox((now: 0, most: 0, mostOpen: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<64 {
                group.addTask {
                    for round in 0..<20 {
                        let work = Task {
                            try await pool.withConnection { connection in
                                lent.withLockedValue { lent in
                                    lent.now += 1
                                    lent.most = max(lent.most, lent.now)
                                    lent.mostOpen = max(lent.mostOpen, pool.counts.open)
                                }
                                await Task.yield()
                                if (task + round) % 13 == 0 { await connection.discard() }
                                lent.withLockedValue { $0.now -= 1 }
                            }
                        }
                        if (task * 7 + round) % 11 == 0 { work.cancel() }
                        _ = try? await work.value
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = lent.withLockedValue { $0 }
        #expect(seen.most <= 4 && seen.mostOpen <= 4)
        #expect(seen.most == 4)
        let counts = pool.counts
        #expect(counts.waiting == 0)
        #expect(counts.open == counts.idle)
        #expect(counts.open == opener.opened.filter { !$0.isClosed }.count)
    }

    @Test func idleConnectionsCloseAfterTheirTimeout() async throws {
        let (pool, opener) = Self.pool(maximum: 2, idleTimeout: .seconds(60))
        let lent = try await Self.lendAll(2, of: pool)
        let before = ContinuousClock.now
        let first = try await lent[0].giveBack()
        let between = ContinuousClock.now
        _ = try await lent[1].giveBack()
        let after = ContinuousClock.now
        // Not yet idle for a minute: both stay.
        await pool.sweep(at: before + .seconds(59))
        #expect(pool.counts.open == 2 && pool.counts.idle == 2)
        // A minute after the first came back, before the second did: the first closes.
        await pool.sweep(at: between + .seconds(60))
        #expect(pool.counts.open == 1)
        #expect(opener.opened[first - 1].isClosed && pool.counts.idle == 1)
        await pool.sweep(at: after + .seconds(60))
        #expect(pool.counts.open == 0)
        #expect(opener.opened.allSatisfy { $0.isClosed })
        // A task after that opens a new one.
        let openedAfter = try await pool.withConnection { $0.id }
        #expect(openedAfter == 3)
    }

    @Test func theSweepDropsIdleConnectionsFoundClosed() async throws {
        let (pool, opener) = Self.pool(maximum: 2)
        let lent = try await Self.lendAll(2, of: pool)
        var returned: [Int] = []
        for connection in lent { returned.append(try await connection.giveBack()) }
        await pool.sweep(at: .now)
        #expect(pool.counts.open == 2)
        // The one returned first lies under the other, where no lease reaches it while the
        // other one serves: the server closes it there.
        await opener.opened[returned[0] - 1].discard()
        await pool.sweep(at: .now)
        #expect(pool.counts.open == 1 && pool.counts.idle == 1)
        let id = try await pool.withConnection { $0.id }
        #expect(id == returned[1])
    }

    @Test func closingRefusesNewLeasesAndClosesEveryConnection() async throws {
        let (pool, opener) = Self.pool(maximum: 2)
        let lent = try await Self.lendAll(1, of: pool)[0]
        try await pool.withConnection { _ in }  // a second connection, idle
        #expect(pool.counts.open == 2 && pool.counts.idle == 1)
        await pool.close()
        // The idle one is closed at once, the lent one when it comes back.
        #expect(opener.opened[1].isClosed && !opener.opened[0].isClosed)
        #expect(pool.counts.open == 1)
        await #expect(throws: ConnectionPool<FakeConnection>.LeaseError.closed) { try await pool.withConnection { _ in } }
        _ = try await lent.giveBack()
        try await Self.eventually { opener.opened.allSatisfy(\.isClosed) }
        #expect(opener.opened.allSatisfy { $0.isClosed })
        #expect(pool.counts.open == 0)
    }
}
