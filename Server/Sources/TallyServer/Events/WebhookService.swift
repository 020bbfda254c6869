import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import TallyCore

/// Runs the delivery worker until graceful shutdown: a round at once after another while
/// deliveries are due, a pause of the poll interval when none are. Owns its HTTP client.
struct WebhookService: Service {
    let storage: any WebhookStorage
    let configuration: WebhookDeliveryConfiguration
    let metrics: Metrics
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        let client = HTTPWebhookTransport.client(batch: configuration.batch)
        var dispatcher = WebhookDispatcher(
            storage: storage, transport: HTTPWebhookTransport(client: client), policy: configuration.retry, timeout: configuration.timeout, now: now)
        dispatcher.batch = configuration.batch
        dispatcher.lease = configuration.claimLease
        let worker = dispatcher
        // A graceful shutdown ends the pause at once but lets the batch in flight finish (each
        // request is bounded by the timeout), so that its attempts are recorded, not cut off.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var busy = false
            do {
                let report = try await worker.runOnce()
                busy = report.delivered + report.failedAttempts > 0
                if report.delivered > 0 { metrics.increment("tally_webhook_attempts_total", ["outcome": "delivered"], by: Int64(report.delivered)) }
                if report.failedAttempts > 0 {
                    metrics.increment("tally_webhook_attempts_total", ["outcome": "failed"], by: Int64(report.failedAttempts))
                }
            } catch {
                logger.warning("webhook delivery failed; the next round tries again", metadata: ["error": "\(error)"])
            }
            if !busy {
                let pause = configuration.pollInterval
                await cancelWhenGracefulShutdown { try? await Task.sleep(for: pause) }
            }
        }
        try? await client.shutdown()
    }
}
