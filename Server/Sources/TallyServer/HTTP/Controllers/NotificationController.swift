import Foundation
import Hummingbird
import TallyCore

/// `POST /v1/notifications/appstore`: App Store Server Notifications V2. The signature is the
/// authentication: a notification that does not verify changes nothing. Each is applied
/// exactly once, by its `notificationUUID`.
struct NotificationController {
    let notifications: NotificationStore
    let checker: SignedDataChecker
    let metrics: Metrics

    /// The largest notification body, whatever the catalog's limit for devices: Apple's carry
    /// signed transactions and renewals.
    static let minimumBodyLimit = 256 * 1024

    /// Apple's body is camelCase: `{"signedPayload": "…"}`.
    struct Body: Decodable {
        var signedPayload: String
    }

    var endpoints: RouteCollection<TallyRequestContext> {
        RouteCollection(context: TallyRequestContext.self)
            .post(use: receive)
    }

    /// `{"outcome": "applied" | "duplicate" | "recorded"}`.
    func receive(_ request: Request, context: TallyRequestContext) async throws -> [String: String] {
        let buffer = try await TallyRequestDecoder.body(of: request, upTo: max(context.maxUploadSize, Self.minimumBodyLimit))
        try TallyRequestDecoder.refuseDuplicateMembers(buffer, convertingFromSnakeCase: false)
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView)) else {
            throw TallyAPIError(.invalidRequest, "the body must be {\"signedPayload\": \"…\"}")
        }
        let verified = try await checker.notification(body.signedPayload)
        let outcome = try await notifications.apply(verified, jws: body.signedPayload)
        let type = verified.payload.notificationType?.rawValue
        metrics.increment("tally_notifications_total", ["type": type ?? "UNKNOWN", "outcome": outcome.rawValue])
        context.logger.info(
            "notification",
            metadata: [
                "type": "\(type ?? "?")", "uuid": "\(verified.payload.notificationUUID ?? "?")", "outcome": "\(outcome.rawValue)",
            ])
        return ["outcome": outcome.rawValue]
    }
}
