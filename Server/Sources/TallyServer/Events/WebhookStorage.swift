public import Foundation

/// A webhook endpoint as the admin API shows it.
public struct WebhookEndpoint: Codable, Hashable, Sendable {
    /// `we_` and a random suffix.
    public var id: String
    /// Where events are posted (http or https).
    public var url: String
    /// The team's note.
    public var description: String
    /// The event types it receives; empty for all.
    public var eventTypes: [TallyEventType]
    /// Whether deliveries are paused (by an operator, or by a 410 answer).
    public var disabled: Bool
    /// Why it was disabled.
    public var disabledReason: String?
    /// Until when the previous secret signs too, after a rotation.
    public var previousSecretUntil: Date?
    /// When it was created.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// The signing secret: only in the answers to a create and a rotation.
    public var secret: String?
}

/// A change to an endpoint; `nil` fields stay as they are.
public struct WebhookEndpointChange: Codable, Sendable {
    /// A new URL.
    public var url: String?
    /// A new note.
    public var description: String?
    /// New event types; empty for all.
    public var eventTypes: [TallyEventType]?
    /// Pause or resume deliveries.
    public var disabled: Bool?
}

/// One event's delivery to one endpoint.
public struct WebhookDelivery: Codable, Hashable, Sendable {
    /// The event (the `webhook-id`).
    public var eventID: String
    /// Its type.
    public var eventType: TallyEventType
    /// `pending`, `delivered`, `failed` (every retry of the schedule failed) or `paused` (the
    /// endpoint is disabled; enabling it makes the delivery pending again).
    public var status: String
    /// Attempts made.
    public var attempts: Int64
    /// When the next attempt is due, while pending.
    public var nextAttemptAt: Date?
    /// When a 2xx answer came.
    public var deliveredAt: Date?
    /// The last answer's HTTP status, if any came.
    public var lastStatusCode: Int64?
}

/// One attempt to deliver an event.
public struct WebhookAttempt: Codable, Hashable, Sendable {
    /// When it was made.
    public var attemptedAt: Date
    /// The HTTP status of the answer; nil when none came.
    public var statusCode: Int64?
    /// How long it took, in milliseconds.
    public var latencyMs: Int64
    /// The first bytes of the answer.
    public var responseExcerpt: String?
    /// What went wrong when no answer came (refused, timed out, …).
    public var error: String?
}

/// A page of deliveries, by event sequence.
public struct WebhookDeliveryPage: Codable, Hashable, Sendable {
    /// The deliveries.
    public var deliveries: [WebhookDelivery]
    /// Pass as `cursor` for the next page; nil at the end.
    public var nextCursor: Int64?
}

/// A page of events, oldest first.
public struct TallyEventPage: Codable, Hashable, Sendable {
    /// The events.
    public var events: [TallyEvent]
    /// Pass as `after` for the next page; nil at the end.
    public var nextCursor: Int64?
}

/// A delivery claimed by a worker: the event, where to send it and the secrets that sign it.
struct ClaimedDelivery: Sendable {
    var endpointID: String
    var url: String
    var secrets: [WebhookSecret]
    /// The event's id (the `webhook-id`) and sequence.
    var eventID: String
    var sequence: Int64
    /// What is posted: the event as it was written, the same bytes on every attempt.
    var body: [UInt8]
    var attempts: Int64
    var claim: String
}

/// How an attempt ended, as the worker records it.
struct AttemptResult: Sendable {
    /// When the request was sent.
    var startedAt: Date
    var statusCode: Int?
    var latencyMilliseconds: Int64
    var excerpt: String?
    var error: String?

    var delivered: Bool { statusCode.map { (200..<300).contains($0) } ?? false }
}

/// An attempt as the worker records it, with what follows from it.
struct RecordedAttempt: Sendable {
    var delivery: ClaimedDelivery
    var result: AttemptResult
    var retryAfter: TimeInterval?
    var disable: String?
}
