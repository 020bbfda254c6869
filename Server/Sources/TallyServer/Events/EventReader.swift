/// What reads the events besides webhook endpoints. The database keeps events from the first
/// time each asked for them (`event_readers`, decision 0042), for every instance that writes: an
/// instance cannot know what another one's readers are.
enum EventReader: String, Sendable {
    /// `GET /v1/admin/events`, the stream to pull.
    case api
    /// The JSON-lines file of `tally serve --events-jsonl`.
    case eventLog = "event_log"
}
