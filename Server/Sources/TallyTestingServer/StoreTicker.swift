public import Logging
public import ServiceLifecycle
import TallyCore
public import TallyTesting

/// Keeps a served store's time moving: processes due renewals and notification deliveries a
/// few times a second, and stops on graceful shutdown.
public struct StoreTicker<C: Clock<Duration>>: Service {
    let store: SimulatedAppStore
    let clock: C
    let interval: Duration
    let logger: Logger

    /// - Parameters:
    ///   - store: the store to tick.
    ///   - clock: the clock the ticker sleeps on.
    ///   - interval: the pause between ticks.
    ///   - logger: where failures are logged.
    public init(store: SimulatedAppStore, clock: C, interval: Duration = .milliseconds(200), logger: Logger) {
        self.store = store
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// Advances the store until graceful shutdown or cancellation; a failed tick is logged and the next one runs.
    public func run() async throws {
        await PeriodicLoop(clock: clock, interval: interval).run(until: { Task.isShuttingDownGracefully }) {
            try await store.tick()
        } failed: { error in
            logger.error("store tick failed", metadata: ["error": "\(error)"])
        }
    }
}
