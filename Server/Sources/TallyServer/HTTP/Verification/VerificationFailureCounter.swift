import NIOConcurrencyHelpers

/// Counts refused signed data in the database for the console, without letting a flood of
/// garbage become a flood of writes: the first refusal after a quiet spell is written at once,
/// and those that follow within ``interval`` are added up in memory and written together when
/// it ends. A crash loses at most one interval's count; the refusals themselves are unaffected.
final class VerificationFailureCounter: Sendable {
    struct Key: Hashable, Sendable {
        var source: String
        var code: String
    }

    private struct State {
        var pending: [Key: Int64] = [:]
        var lastWrite: ContinuousClock.Instant?
        var scheduled = false
    }

    private let storage: ConsoleStore
    private let interval: Duration
    private let state = NIOLockedValueBox(State())
    private let now: @Sendable () -> ContinuousClock.Instant
    private let later: @Sendable (Duration, @escaping @Sendable () async -> Void) -> Void

    /// - Parameters:
    ///   - interval: how long refusals are added up after a write.
    ///   - now: the clock.
    ///   - later: runs work after a delay (a task that sleeps).
    init(
        storage: ConsoleStore, interval: Duration = .seconds(5), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        later: @escaping @Sendable (Duration, @escaping @Sendable () async -> Void) -> Void = { delay, work in
            Task {
                try? await Task.sleep(for: delay)
                await work()
            }
        }
    ) {
        self.storage = storage
        self.interval = interval
        self.now = now
        self.later = later
    }

    /// Counts one refusal of `source` (purchase, receipt, notification) with the verifier's `code`.
    func count(source: String, code: String) async {
        let now = self.now()
        let wait: Duration? = state.withLockedValue { state in
            state.pending[Key(source: source, code: code), default: 0] += 1
            if state.scheduled { return .zero }
            if let last = state.lastWrite, now - last < interval {
                state.scheduled = true
                return interval - (now - last)
            }
            state.lastWrite = now
            return nil
        }
        switch wait {
        case nil:
            await write()
        case let delay? where delay > .zero:
            later(delay) { [self] in
                let time = self.now()
                state.withLockedValue {
                    $0.scheduled = false
                    $0.lastWrite = time
                }
                await write()
            }
        default:
            break
        }
    }

    private func write() async {
        let counts = state.withLockedValue { state in
            defer { state.pending = [:] }
            return state.pending
        }
        guard !counts.isEmpty else { return }
        // A count that cannot be written must not change any answer.
        try? await storage.countVerificationFailures(counts.map { ($0.key.source, $0.key.code, $0.value) })
    }
}
