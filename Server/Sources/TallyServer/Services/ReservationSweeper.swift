public import Logging
public import ServiceLifecycle
import TallyCore

/// Releases reservations whose time is up, once a second, until graceful shutdown.
/// Safe on several instances at once: each reservation is closed by a conditional update.
public struct ReservationSweeper<C: Clock<Duration>>: Service {
    let spending: SpendingStore
    let clock: C
    let interval: Duration
    let logger: Logger

    /// - Parameters:
    ///   - spending: where reservations live.
    ///   - clock: the clock it sleeps on.
    ///   - interval: the pause between sweeps.
    ///   - logger: where failures go.
    public init(spending: SpendingStore, clock: C, interval: Duration = .seconds(1), logger: Logger) {
        self.spending = spending
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// Sweeps until graceful shutdown or cancellation; a failed sweep is logged and the next one runs.
    public func run() async throws {
        try await PeriodicService("reservation sweep", clock: clock, interval: interval, logger: logger) {
            let expired = try await spending.expireReservations()
            if expired > 0 { logger.info("reservations expired", metadata: ["count": "\(expired)"]) }
        }.run()
    }
}
