/// The loop of a background service that does one step again and again with a pause between (the
/// server's reservation sweeper, the simulated store's ticker), in one place.
///
/// A step that throws does not end the loop: the error goes to the caller's `failed` and the next
/// step runs after the pause. The loop ends when the caller says it is stopping (graceful
/// shutdown, for a ServiceLifecycle service) or its task is cancelled.
///
/// ```swift
/// await PeriodicLoop(clock: ContinuousClock(), interval: .seconds(1))
///     .run(until: { Task.isShuttingDownGracefully }) {
///         try await storage.expireReservations()
///     } failed: { error in
///         logger.error("sweep failed", metadata: ["error": "\(error)"])
///     }
/// ```
public struct PeriodicLoop<C: Clock<Duration>>: Sendable {
    /// The clock the pauses are slept on.
    public var clock: C
    /// The pause after each step.
    public var interval: Duration

    /// - Parameters:
    ///   - clock: the clock the pauses are slept on.
    ///   - interval: the pause after each step.
    public init(clock: C, interval: Duration) {
        self.clock = clock
        self.interval = interval
    }

    /// Runs `step`, then pauses for ``interval``, until `isStopping` returns true or the task is
    /// cancelled; both are checked before each step.
    /// - Parameters:
    ///   - isStopping: whether the owner is shutting down.
    ///   - step: one round of work.
    ///   - failed: told what a step threw; the loop goes on.
    public func run(
        until isStopping: () -> Bool, _ step: () async throws -> Void, failed: (any Error) -> Void
    ) async {
        while !isStopping() && !Task.isCancelled {
            do {
                try await step()
            } catch {
                failed(error)
            }
            // A sleep cut short by cancellation ends the loop at the check above.
            try? await clock.sleep(for: interval)
        }
    }
}
