public import Logging
public import ServiceLifecycle
import TallyCore

/// A service that runs a step at start and then after every pause, until graceful shutdown,
/// which also cuts the pause short (SIGTERM does not wait out an interval). A step that throws
/// is logged and the next one runs as usual.
public struct PeriodicService<C: Clock<Duration>>: Service {
    let name: String
    let clock: C
    let interval: Duration
    let logger: Logger
    let step: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - name: what the step does, for the log ("notification catch-up").
    ///   - clock: the clock of the pauses.
    ///   - interval: the pause after each step.
    ///   - logger: where failures go.
    ///   - step: one round of work.
    public init(_ name: String, clock: C, interval: Duration, logger: Logger, step: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.clock = clock
        self.interval = interval
        self.logger = logger
        self.step = step
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await loop()
        }
    }

    private func loop() async {
        await PeriodicLoop(clock: clock, interval: interval).run(until: { Task.isShuttingDownGracefully }) {
            try await step()
        } failed: { error in
            logger.warning("\(name) failed; the next round tries again", metadata: ["error": "\(error)"])
        }
    }
}
