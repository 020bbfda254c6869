import Foundation

/// A clock that moves only when told to: sleepers wake when ``advance(by:)`` reaches their
/// deadline, in deadline order. For tests of backoff, TTLs and refresh loops without waiting.
///
/// ```swift
/// let clock = ManualClock()
/// let manager = try await PurchaseManager(…, clock: clock)
/// await clock.waitForSleepers(1)          // the retry is scheduled
/// clock.advance(by: .seconds(2))          // and now it runs
/// #expect(clock.sleeperCount == 0)        // nothing left waiting
/// ```
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public final class ManualClock: Clock, @unchecked Sendable {
    /// A point on the manual clock: the time advanced since it was made.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: Sleeper] = [:]
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// A clock at offset zero.
    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on the clock now.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, ready) = lock.withLock { () -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= current { return (true, []) }
                    if Task.isCancelled { return (true, []) }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, takeReadyWaiters())
                }
                for waiter in ready { waiter.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline is reached, earliest first.
    public func advance(by duration: Duration) {
        let woken = lock.withLock { () -> [Sleeper] in
            current = current.advanced(by: duration)
            let due = sleepers.filter { $0.value.deadline <= current }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { sleepers[id] = nil }
            return due.map(\.value)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Moves the clock to the earliest sleeper's deadline and wakes it (and any due with it).
    /// - Returns: whether anyone was sleeping.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let next = lock.withLock({ sleepers.values.map(\.deadline).min() }) else { return false }
        advance(by: now.duration(to: next))
        return true
    }

    /// Waits until at least `count` tasks sleep on the clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock { () -> Bool in
                if sleepers.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Must be called with the lock held.
    private func takeReadyWaiters() -> [CheckedContinuation<Void, Never>] {
        let ready = waiters.filter { $0.count <= sleepers.count }
        waiters.removeAll { $0.count <= sleepers.count }
        return ready.map(\.continuation)
    }
}
