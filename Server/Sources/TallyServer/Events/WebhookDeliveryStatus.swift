import TallyCore

/// Where one event's delivery to one webhook endpoint stands (`webhook_deliveries.status`).
struct WebhookDeliveryStatus: StableCode {
    let rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }

    /// Due at `next_attempt_at`: a worker sends it then.
    static let pending = Self(rawValue: "pending")
    /// The endpoint answered 2xx.
    static let delivered = Self(rawValue: "delivered")
    /// Every retry of the schedule failed.
    static let failed = Self(rawValue: "failed")
    /// The endpoint is disabled; enabling it makes the delivery pending again.
    static let paused = Self(rawValue: "paused")

    static let all: [Self] = [.pending, .delivered, .failed, .paused]
}
