import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import TallyCore

/// Runs the delivery worker until graceful shutdown: claims as requests end while deliveries
/// are due, after a pause of the poll interval when fewer were due than it had room for. Owns
/// its HTTP client.
struct WebhookService: Service {
    let storage: WebhookStore
    let configuration: WebhookDeliveryConfiguration
    let metrics: Metrics
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        let client = HTTPWebhookTransport.client(perEndpoint: configuration.perEndpoint)
        var dispatcher = WebhookDispatcher(
            storage: storage, transport: HTTPWebhookTransport(client: client), policy: configuration.retry, timeout: configuration.timeout, now: now)
        dispatcher.concurrency = configuration.concurrency
        dispatcher.perEndpoint = configuration.perEndpoint
        dispatcher.lease = configuration.claimLease
        let worker = dispatcher
        let pollInterval = configuration.pollInterval
        let metrics = metrics
        // A graceful shutdown ends the pause at once and stops the claims, but lets the requests
        // in flight finish (each is bounded by the timeout), so that their attempts are recorded.
        let pause: @Sendable () async -> Void = { await cancelWhenGracefulShutdown { try? await Task.sleep(for: pollInterval) } }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                _ = try await worker.run(pause: pause, stop: { Task.isShuttingDownGracefully }) { report in
                    if report.delivered > 0 { metrics.increment("tally_webhook_attempts_total", ["outcome": "delivered"], by: Int64(report.delivered)) }
                    if report.failedAttempts > 0 {
                        metrics.increment("tally_webhook_attempts_total", ["outcome": "failed"], by: Int64(report.failedAttempts))
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning("webhook delivery failed; trying again after the poll interval", metadata: ["error": "\(error)"])
                await pause()
            }
        }
        try? await client.shutdown()
    }
}
