import Foundation
import TallyCore
import TallySQL

/// Webhook endpoints, the outbox's deliveries and their attempts, and the events: what the admin
/// API, the delivery worker and the event log keep in the database, through the unit of work
/// the other stores share (``Transactions``). Its writes see everything the writes before them
/// wrote (``Transactions/writeSeeingEarlierWrites(_:)``): an event written before an endpoint
/// changes is delivered as the endpoint was.
struct WebhookStore: TransactionalStore {
    let transactions: Transactions

    static func millis(_ date: Date) -> Int64 { SQLStorage.millis(date) }
    static func date(_ millis: Int64) -> Date { SQLStorage.date(millis) }

    /// Refuses an endpoint URL that is not absolute http(s) with a host (``APIPattern/webhookURL``), or is too long.
    static func checkEndpoint(url: String, description: String) throws(StorageError) {
        guard url.utf8.count <= 2048, APIPattern.webhookURL.matches(url), let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty, parsed.user == nil
        else {
            throw StorageError(
                .invalidRequest,
                "url must be an absolute http or https URL of at most 2048 bytes, with a host name or IPv4 address, without credentials, other characters than RFC 3986's percent-encoded"
            )
        }
        guard description.unicodeScalars.count <= 500 else { throw StorageError(.invalidRequest, "description must be at most 500 characters") }
        // NUL is no text to PostgreSQL; no URL or note needs a control character.
        guard !(url + description).unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) else {
            throw StorageError(.invalidRequest, "url and description must not contain control characters")
        }
    }

    /// Refuses event types this version does not know.
    static func checkTypes(_ types: [TallyEventType]) throws(StorageError) {
        if let unknown = types.first(where: { !$0.isKnown }) {
            throw StorageError(.invalidRequest, "event_types: \(unknown.rawValue.prefix(64)) is not an event type")
        }
    }

    func createEndpoint(url: String, description: String, eventTypes: [TallyEventType], secret: WebhookSecret) async throws -> WebhookEndpoint {
        try Self.checkEndpoint(url: url, description: description)
        try Self.checkTypes(eventTypes)
        let id = "we_" + RandomID.base32(count: 26)
        let types = Array(Set(eventTypes)).sorted { $0.rawValue < $1.rawValue }
        return try await writeSeeingEarlierWrites { executor, time in
            try await executor.execute(
                """
                INSERT INTO webhook_endpoints (id, url, description, all_types, secret, created_at, updated_at)
                VALUES (\(id), \(url), \(description), \(types.isEmpty), \(secret.text), \(time), \(time))
                """)
            for type in types {
                try await executor.execute("INSERT INTO webhook_endpoint_types (endpoint_id, type) VALUES (\(id), \(type))")
            }
            var endpoint = try await Self.endpoint(executor, id: id)
            endpoint.secret = secret.text
            return endpoint
        }
    }

    func endpoints() async throws -> [WebhookEndpoint] {
        try await read { executor, _ in
            var endpoints: [WebhookEndpoint] = []
            for row in try await executor.fetchAll(IDRow.self, "SELECT \(IDRow.Columns.id) FROM webhook_endpoints ORDER BY created_at, id LIMIT 1000") {
                endpoints.append(try await Self.endpoint(executor, id: row.id))
            }
            return endpoints
        }
    }

    func endpoint(id: String) async throws -> WebhookEndpoint {
        try await read { executor, _ in try await Self.endpoint(executor, id: id) }
    }

    static func endpoint(_ executor: any SQLExecutor, id: String) async throws -> WebhookEndpoint {
        guard let row = try await executor.fetchOne(EndpointRow.self, "SELECT * FROM webhook_endpoints WHERE id = \(id)") else {
            throw StorageError(.notFound, "no webhook endpoint \(id)")
        }
        let types = try await executor.fetchAll(
            EndpointTypeRow.self, "SELECT \(EndpointTypeRow.Columns.type) FROM webhook_endpoint_types WHERE endpoint_id = \(id) ORDER BY type")
        return WebhookEndpoint(
            id: id, url: row.url, description: row.description, eventTypes: types.map(\.type),
            disabled: row.disabled == 1, disabledReason: row.disabledReason,
            previousSecretUntil: row.previousSecretUntil.map(date), createdAt: date(row.createdAt),
            updatedAt: date(row.updatedAt), secret: nil)
    }

    func updateEndpoint(id: String, change: WebhookEndpointChange) async throws -> WebhookEndpoint {
        if change.url != nil || change.description != nil {
            try Self.checkEndpoint(url: change.url ?? "https://unchanged.invalid", description: change.description ?? "")
        }
        try Self.checkTypes(change.eventTypes ?? [])
        return try await writeSeeingEarlierWrites { executor, time in
            _ = try await Self.endpoint(executor, id: id)
            if let url = change.url {
                try await executor.execute("UPDATE webhook_endpoints SET url = \(url), updated_at = \(time) WHERE id = \(id)")
            }
            if let description = change.description {
                try await executor.execute("UPDATE webhook_endpoints SET description = \(description), updated_at = \(time) WHERE id = \(id)")
            }
            if let types = change.eventTypes {
                let unique = Array(Set(types)).sorted { $0.rawValue < $1.rawValue }
                try await executor.execute("DELETE FROM webhook_endpoint_types WHERE endpoint_id = \(id)")
                for type in unique {
                    try await executor.execute("INSERT INTO webhook_endpoint_types (endpoint_id, type) VALUES (\(id), \(type))")
                }
                try await executor.execute("UPDATE webhook_endpoints SET all_types = \(unique.isEmpty), updated_at = \(time) WHERE id = \(id)")
            }
            if let disabled = change.disabled {
                let reason: String? = disabled ? "disabled by an operator" : nil
                let changed = try await executor.execute(
                    "UPDATE webhook_endpoints SET disabled = \(disabled), disabled_reason = \(reason), updated_at = \(time) WHERE id = \(id) AND disabled = \(!disabled)"
                )
                if changed == 1 { try await Self.pause(executor, endpoint: id, disabled ? .pause : .resume, time: time) }
            }
            return try await Self.endpoint(executor, id: id)
        }
    }

    /// Signs with `secret` from now on, and with the current one too until `overlap` has passed;
    /// refused while an earlier rotation's previous secret still signs.
    func rotateSecret(id: String, secret: WebhookSecret, overlap: TimeInterval) async throws -> WebhookEndpoint {
        try await writeSeeingEarlierWrites { executor, time in
            let current = try await Self.endpoint(executor, id: id)
            // A second rotation now would stop the first secret at once, under receivers that
            // may not have moved yet (or a retried request would): one at a time.
            if let until = current.previousSecretUntil, Self.millis(until) > time {
                throw StorageError(.conflict, "a rotation is under way: the previous secret signs until \(TallyAPI.timestamp(until))")
            }
            let until = time + Int64(overlap * 1000)
            try await executor.execute(
                """
                UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = \(until), secret = \(secret.text), updated_at = \(time)
                WHERE id = \(id)
                """)
            var endpoint = try await Self.endpoint(executor, id: id)
            endpoint.secret = secret.text
            return endpoint
        }
    }

    enum Pause { case pause, resume }

    /// A disabled endpoint's pending deliveries wait as `paused` (so that no worker looks at
    /// them); enabling it makes them due at once.
    static func pause(_ executor: any SQLExecutor, endpoint: String, _ pause: Pause, time: Int64) async throws {
        switch pause {
        case .pause:
            try await executor.execute("UPDATE webhook_deliveries SET status = 'paused' WHERE endpoint_id = \(endpoint) AND status = 'pending'")
        case .resume:
            try await executor.execute(
                "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = \(time) WHERE endpoint_id = \(endpoint) AND status = 'paused'")
        }
    }

    func deleteEndpoint(id: String) async throws {
        try await writeSeeingEarlierWrites { executor, _ in
            _ = try await Self.endpoint(executor, id: id)
            // In order, without relying on foreign-key cascades (off by default in SQLite).
            try await executor.execute("DELETE FROM webhook_attempts WHERE endpoint_id = \(id)")
            try await executor.execute("DELETE FROM webhook_deliveries WHERE endpoint_id = \(id)")
            try await executor.execute("DELETE FROM webhook_endpoint_types WHERE endpoint_id = \(id)")
            try await executor.execute("DELETE FROM webhook_endpoints WHERE id = \(id)")
        }
    }

    func deliveries(endpointID: String, status: String?, limit: Int, cursor: Int64?) async throws -> WebhookDeliveryPage {
        let status = status.map(WebhookDeliveryStatus.init(rawValue:))
        if let status, !status.isKnown {
            throw StorageError(.invalidRequest, "status must be pending, delivered, failed or paused")
        }
        return try await read { executor, _ in
            _ = try await Self.endpoint(executor, id: endpointID)
            var sql: SQL = """
                SELECT d.*, e.id AS event_id, e.type FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
                WHERE d.endpoint_id = \(endpointID)
                """
            if let status {
                sql += " AND d.status = \(status)"
            }
            if let cursor {
                sql += " AND d.event_seq > \(cursor)"
            }
            sql += " ORDER BY d.event_seq LIMIT \(limit + 1)"
            let rows = try await executor.fetchAll(DeliveryRow.self, sql)
            let page = rows.prefix(limit).map(\.delivery)
            return WebhookDeliveryPage(deliveries: page, nextCursor: rows.count > limit ? rows[limit - 1].eventSeq : nil)
        }
    }

    private static func eventSeq(_ executor: any SQLExecutor, id: String) async throws -> Int64 {
        guard let row = try await executor.fetchOne(EventSeqRow.self, "SELECT \(EventSeqRow.Columns.seq) FROM events WHERE id = \(id)") else {
            throw StorageError(.notFound, "no event \(id)")
        }
        return row.seq
    }

    func attempts(endpointID: String, eventID: String) async throws -> [WebhookAttempt] {
        try await read { executor, _ in
            _ = try await Self.endpoint(executor, id: endpointID)
            let seq = try await Self.eventSeq(executor, id: eventID)
            return try await executor.fetchAll(
                AttemptRow.self, "SELECT * FROM webhook_attempts WHERE endpoint_id = \(endpointID) AND event_seq = \(seq) ORDER BY id LIMIT 100"
            ).map(\.attempt)
        }
    }

    /// Makes the event due at once for the endpoint again (or for the first time), whatever its
    /// state; refused while the endpoint is disabled or a worker is sending the event.
    func replay(endpointID: String, eventID: String) async throws -> WebhookDelivery {
        try await writeSeeingEarlierWrites { executor, time in
            guard !(try await Self.endpoint(executor, id: endpointID)).disabled else {
                throw StorageError(.conflict, "endpoint \(endpointID) is disabled: enable it first")
            }
            let seq = try await Self.eventSeq(executor, id: eventID)
            // A delivery a worker is sending now keeps its claim: replaying it would send it twice at once.
            let changed = try await executor.execute(
                """
                INSERT INTO webhook_deliveries (endpoint_id, event_seq, status, next_attempt_at, created_at) \
                VALUES (\(endpointID), \(seq), 'pending', \(time), \(time))
                ON CONFLICT (endpoint_id, event_seq) DO UPDATE SET status = 'pending', next_attempt_at = excluded.next_attempt_at,
                    claim = NULL, claimed_until = NULL
                WHERE webhook_deliveries.claimed_until IS NULL OR webhook_deliveries.claimed_until < excluded.next_attempt_at
                """)
            guard changed == 1 else { throw StorageError(.conflict, "event \(eventID) is being sent to \(endpointID) now") }
            let rows = try await executor.fetchAll(
                DeliveryRow.self,
                """
                SELECT d.*, e.id AS event_id, e.type FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
                WHERE d.endpoint_id = \(endpointID) AND d.event_seq = \(seq)
                """)
            return rows[0].delivery
        }
    }

    /// The events after `after`, oldest first, as `reader` reads them. The first time a reader
    /// asks, the database starts keeping events for it (``keepEvents(for:)``): events written
    /// while nothing read them were never written.
    func events(for reader: EventReader, after: Int64?, type: TallyEventType?, userID: String?, limit: Int) async throws -> TallyEventPage {
        let (page, kept) = try await read { executor, _ in
            let kept = try await executor.query("SELECT 1 AS kept FROM event_readers WHERE name = \(reader)").isEmpty == false
            var sql: SQL = "SELECT * FROM events WHERE seq > \(after ?? 0)"
            if let type {
                sql += " AND type = \(type)"
            }
            if let userID {
                sql += " AND user_id = \(userID)"
            }
            sql += " ORDER BY seq LIMIT \(limit + 1)"
            let rows = try await executor.fetchAll(EventRow.self, sql)
            let events = try rows.prefix(limit).map { try $0.event() }
            return (TallyEventPage(events: events, nextCursor: rows.count > limit ? events.last?.sequence : nil), kept)
        }
        if !kept { try await keepEvents(for: reader) }
        return page
    }

    /// Stops keeping events for `reader`: once neither a reader nor a webhook endpoint is left,
    /// changes write no event. A server still running with the event log, or a later request of
    /// the API's stream, records its reader again.
    /// - Throws: ``StorageError`` `not_found` when `reader` is not recorded.
    func forgetEvents(for reader: EventReader) async throws {
        let removed = try await writeSeeingEarlierWrites { executor, _ in
            try await executor.execute("DELETE FROM event_readers WHERE name = \(reader)")
        }
        guard removed > 0 else { throw StorageError(.notFound, "\(reader.rawValue) is not recorded as a reader of the events") }
    }

    /// Makes the database keep events for `reader` from now on; nothing when it does already.
    /// It sees the writes before it (``Transactions/writeSeeingEarlierWrites(_:)``): their events
    /// were written, or not, as things stood before it.
    func keepEvents(for reader: EventReader) async throws {
        _ = try await writeSeeingEarlierWrites { executor, time in
            try await executor.execute("INSERT INTO event_readers (name, since) VALUES (\(reader), \(time)) ON CONFLICT (name) DO NOTHING")
        }
    }

    /// Claims up to `limit` due deliveries for `lease` seconds, at most `perEndpoint` less its
    /// count in `busy` (the worker's requests in flight) for each endpoint.
    func claimDeliveries(limit: Int, lease: TimeInterval, busy: [String: Int], perEndpoint: Int) async throws -> [ClaimedDelivery] {
        let skipLocked: SQL = transactions.database.dialect == .postgres ? " FOR UPDATE OF d SKIP LOCKED" : ""
        // A look on a snapshot first: an idle worker polls without taking the write lock.
        let due = try await read { executor, time in
            try await executor.query(
                """
                SELECT 1 AS due FROM webhook_deliveries
                WHERE status = 'pending' AND next_attempt_at <= \(time) AND (claimed_until IS NULL OR claimed_until < \(time)) LIMIT 1
                """
            ).isEmpty == false
        }
        guard due else { return [] }
        return try await writeSeeingEarlierWrites { executor, time in
            // Queued for an endpoint while it was being disabled: paused like the rest of its deliveries.
            try await executor.execute(
                """
                UPDATE webhook_deliveries SET status = 'paused'
                WHERE status = 'pending' AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled = 1)
                """)
            // One statement claims: due, and not claimed by a live worker; on PostgreSQL rows
            // another worker is claiming right now are skipped, not waited for. An endpoint
            // gets no more than its free slots (`perEndpoint` less what is in flight to it);
            // endpoints with none are left out before the limit, so they cannot crowd out the rest.
            let claim = UUID().uuidString
            let full = busy.filter { $0.value >= perEndpoint }.keys.sorted()
            let partial = busy.filter { $0.value < perEndpoint }.sorted { $0.key < $1.key }
            // NOT IN only with a list: `NOT IN (NULL)` would leave out every endpoint.
            let excluded: SQL = full.isEmpty ? "" : " AND d.endpoint_id NOT IN (\(list: full))"
            let inFlight = partial.map { endpoint -> SQL in "(\(endpoint.key), \(endpoint.value))" }.joined(separator: ", ")
            let busyJoin: SQL = partial.isEmpty ? "" : " LEFT JOIN (VALUES \(inFlight)) AS busy ON busy.column1 = ranked.endpoint_id"
            let busyCount: SQL = partial.isEmpty ? "0" : "COALESCE(busy.column2, 0)"
            let claimedUntil = time + Int64(lease * 1000)
            try await executor.execute(
                """
                UPDATE webhook_deliveries SET claim = \(claim), claimed_until = \(claimedUntil)
                WHERE (endpoint_id, event_seq) IN (
                    SELECT ranked.endpoint_id, ranked.event_seq FROM (
                        SELECT c.endpoint_id, c.event_seq,
                            ROW_NUMBER() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.event_seq) AS n
                        FROM (
                            SELECT d.endpoint_id, d.event_seq, d.next_attempt_at
                            FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
                            WHERE d.status = 'pending' AND d.next_attempt_at <= \(time) AND w.disabled = 0
                                AND (d.claimed_until IS NULL OR d.claimed_until < \(time))\(excluded)
                            ORDER BY d.next_attempt_at LIMIT \(limit)\(skipLocked)
                        ) c
                    ) ranked\(busyJoin)
                    WHERE ranked.n <= \(perEndpoint) - \(busyCount))
                """)
            let rows = try await executor.fetchAll(
                ClaimedRow.self,
                """
                SELECT d.endpoint_id, d.attempts, w.url, w.secret, w.previous_secret, w.previous_secret_until,
                    e.seq, e.id, e.type, e.version, e.data, e.created_at
                FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.seq = d.event_seq
                WHERE d.claim = \(claim)
                ORDER BY d.next_attempt_at, e.seq
                """)
            if rows.isEmpty {
                // Due but nothing to claim: deliveries queued for an endpoint while it was being
                // deleted (PostgreSQL) are dropped, so that idle polls stay read-only.
                try await executor.execute(
                    "DELETE FROM webhook_deliveries WHERE status = 'pending' AND endpoint_id NOT IN (SELECT id FROM webhook_endpoints)")
            }
            return try rows.map { row in
                var secrets = [WebhookSecret(row.secret)].compactMap { $0 }
                if let previous = row.previousSecret.flatMap(WebhookSecret.init), (row.previousSecretUntil ?? 0) > time {
                    secrets.append(previous)
                }
                return ClaimedDelivery(
                    endpointID: row.endpointID, url: row.url, secrets: secrets, eventID: row.event.id,
                    sequence: row.event.seq, body: try row.event.body(), attempts: row.attempts, claim: claim)
            }
        }
    }

    /// Records attempts in one transaction; after a failure the next is due after its
    /// `retryAfter` (nil: no more tries), and `disable` stops the endpoint (a 410).
    func recordAttempts(_ attempts: [RecordedAttempt]) async throws {
        guard !attempts.isEmpty else { return }
        try await writeSeeingEarlierWrites { executor, time in
            // A few statements for the whole batch, not a few per delivery: every attempt in one
            // insert, then the deliveries moved on in groups that end the same way.
            let rows = attempts.map { attempt -> SQL in
                let result = attempt.result
                return """
                    (\(attempt.delivery.endpointID), \(attempt.delivery.sequence), \(Self.millis(result.startedAt)), \(result.statusCode.map(Int64.init)), \
                    \(result.latencyMilliseconds), \(result.excerpt), \(result.error))
                    """
            }
            try await executor.execute(
                """
                INSERT INTO webhook_attempts (endpoint_id, event_seq, attempted_at, status_code, latency_ms, response_excerpt, error)
                VALUES \(rows.joined(separator: ", "))
                """)
            // An endpoint deleted while its deliveries were in flight keeps no attempts.
            let endpoints = Set(attempts.map(\.delivery.endpointID)).sorted()
            let existing = Set(
                try await executor.fetchAll(IDRow.self, "SELECT \(IDRow.Columns.id) FROM webhook_endpoints WHERE id IN (\(list: endpoints))").map(\.id))
            for gone in endpoints where !existing.contains(gone) {
                try await executor.execute("DELETE FROM webhook_attempts WHERE endpoint_id = \(gone)")
            }
            struct Outcome: Hashable {
                var status: WebhookDeliveryStatus
                var next: Int64
                var code: Int64?
                var delivered: Int64?
                var claim: String
            }
            var groups: [Outcome: [ClaimedDelivery]] = [:]
            for attempt in attempts {
                let result = attempt.result
                let outcome = Outcome(
                    status: result.delivered ? .delivered : attempt.retryAfter == nil ? .failed : .pending,
                    next: time + Int64((attempt.retryAfter ?? 0) * 1000), code: result.statusCode.map(Int64.init),
                    delivered: result.delivered ? time : nil, claim: attempt.delivery.claim)
                groups[outcome, default: []].append(attempt.delivery)
            }
            for (outcome, deliveries) in groups {
                // Only the claim's holder moves a delivery on: a replay or a newer claim since stays.
                let keys = deliveries.map { delivery -> SQL in "(\(delivery.endpointID), \(delivery.sequence))" }.joined(separator: ", ")
                try await executor.execute(
                    """
                    UPDATE webhook_deliveries SET status = \(outcome.status), attempts = attempts + 1, next_attempt_at = \(outcome.next), \
                    last_status_code = \(outcome.code),
                        delivered_at = \(outcome.delivered), claim = NULL, claimed_until = NULL
                    WHERE claim = \(outcome.claim) AND (endpoint_id, event_seq) IN (VALUES \(keys))
                    """)
            }
            for attempt in attempts {
                guard let disable = attempt.disable else { continue }
                let changed = try await executor.execute(
                    "UPDATE webhook_endpoints SET disabled = 1, disabled_reason = \(disable), updated_at = \(time) WHERE id = \(attempt.delivery.endpointID) AND disabled = 0"
                )
                if changed == 1 { try await Self.pause(executor, endpoint: attempt.delivery.endpointID, .pause, time: time) }
            }
        }
    }
}

extension WebhookStore {
    /// Claims up to `limit` due deliveries for `lease` seconds, whatever their endpoints.
    func claimDeliveries(limit: Int, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        try await claimDeliveries(limit: limit, lease: lease, busy: [:], perEndpoint: limit)
    }
}

// MARK: - Rows

extension WebhookStore {
    /// An endpoint's id.
    private struct IDRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
        }

        let id: String

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.text(Columns.id)
        }
    }

    /// A row of `webhook_endpoints` (its id is known to the reader).
    private struct EndpointRow: SQLRowDecodable {
        enum Columns {
            static let url = SQLColumn("url")
            static let description = SQLColumn("description")
            static let disabled = SQLColumn("disabled")
            static let disabledReason = SQLColumn("disabled_reason")
            static let previousSecretUntil = SQLColumn("previous_secret_until")
            static let createdAt = SQLColumn("created_at")
            static let updatedAt = SQLColumn("updated_at")
        }

        let url: String
        let description: String
        let disabled: Int64
        let disabledReason: String?
        let previousSecretUntil: Int64?
        let createdAt: Int64
        let updatedAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            url = try row.text(Columns.url)
            description = try row.text(Columns.description)
            disabled = try row.int(Columns.disabled)
            disabledReason = try row.optionalText(Columns.disabledReason)
            previousSecretUntil = try row.optionalInt(Columns.previousSecretUntil)
            createdAt = try row.int(Columns.createdAt)
            updatedAt = try row.int(Columns.updatedAt)
        }
    }

    /// An event type an endpoint subscribes to.
    private struct EndpointTypeRow: SQLRowDecodable {
        enum Columns {
            static let type = SQLColumn("type")
        }

        let type: TallyEventType

        init(row: SQLRow) throws(SQLDatabaseError) {
            type = try row.code(TallyEventType.self, Columns.type)
        }
    }

    /// A row of `webhook_deliveries` with its event's id (`event_id`) and type.
    private struct DeliveryRow: SQLRowDecodable {
        enum Columns {
            static let eventSeq = SQLColumn("event_seq")
            static let eventID = SQLColumn("event_id")
            static let type = SQLColumn("type")
            static let status = SQLColumn("status")
            static let attempts = SQLColumn("attempts")
            static let nextAttemptAt = SQLColumn("next_attempt_at")
            static let deliveredAt = SQLColumn("delivered_at")
            static let lastStatusCode = SQLColumn("last_status_code")
        }

        let eventSeq: Int64
        let delivery: WebhookDelivery

        init(row: SQLRow) throws(SQLDatabaseError) {
            eventSeq = try row.int(Columns.eventSeq)
            let status = try row.text(Columns.status)
            delivery = WebhookDelivery(
                eventID: try row.text(Columns.eventID), eventType: try row.code(TallyEventType.self, Columns.type),
                status: status, attempts: try row.int(Columns.attempts),
                // Only a pending delivery has a next attempt to show.
                nextAttemptAt: status == "pending" ? WebhookStore.date(try row.int(Columns.nextAttemptAt)) : nil,
                deliveredAt: try row.optionalInt(Columns.deliveredAt).map(WebhookStore.date),
                lastStatusCode: try row.optionalInt(Columns.lastStatusCode))
        }
    }

    /// An event's sequence number.
    private struct EventSeqRow: SQLRowDecodable {
        enum Columns {
            static let seq = SQLColumn("seq")
        }

        let seq: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            seq = try row.int(Columns.seq)
        }
    }

    /// A row of `webhook_attempts`.
    private struct AttemptRow: SQLRowDecodable {
        enum Columns {
            static let attemptedAt = SQLColumn("attempted_at")
            static let statusCode = SQLColumn("status_code")
            static let latencyMs = SQLColumn("latency_ms")
            static let responseExcerpt = SQLColumn("response_excerpt")
            static let error = SQLColumn("error")
        }

        let attempt: WebhookAttempt

        init(row: SQLRow) throws(SQLDatabaseError) {
            attempt = WebhookAttempt(
                attemptedAt: WebhookStore.date(try row.int(Columns.attemptedAt)), statusCode: try row.optionalInt(Columns.statusCode),
                latencyMs: try row.int(Columns.latencyMs), responseExcerpt: try row.optionalText(Columns.responseExcerpt),
                error: try row.optionalText(Columns.error))
        }
    }

    /// A row of `events`, as it is listed and as it is posted.
    private struct EventRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let type = SQLColumn("type")
            static let version = SQLColumn("version")
            static let seq = SQLColumn("seq")
            static let createdAt = SQLColumn("created_at")
            static let data = SQLColumn("data")
        }

        let id: String
        let type: String
        let version: Int64
        let seq: Int64
        let createdAt: Int64
        /// The event's data, as JSON text exactly as it was written.
        let data: String

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.text(Columns.id)
            type = try row.text(Columns.type)
            version = try row.int(Columns.version)
            seq = try row.int(Columns.seq)
            createdAt = try row.int(Columns.createdAt)
            data = try row.text(Columns.data)
        }

        /// The event, its data decoded.
        func event() throws -> TallyEvent {
            TallyEvent(
                id: id, type: TallyEventType(rawValue: type), version: Int(version), sequence: seq, timestamp: WebhookStore.date(createdAt),
                ordering: "unordered", data: try SQLStorage.decode(TallyEventData.self, data))
        }

        /// The bytes the event is posted as: the envelope in Tally's JSON (sorted keys) around
        /// the data exactly as it was written, so that no later version re-encodes an old event.
        func body() throws -> [UInt8] {
            struct Envelope: Encodable {
                var id: String
                var ordering = "unordered"
                var sequence: Int64
                var timestamp: Date
                var type: String
                var version: Int64
            }
            let envelope = try TallyAPI.encoder().encode(
                Envelope(id: id, sequence: seq, timestamp: WebhookStore.date(createdAt), type: type, version: version))
            // "data" sorts before every other key: {"data":…, then the envelope's members.
            return Array("{\"data\":".utf8) + Array(data.utf8) + [UInt8(ascii: ",")] + Array(envelope.dropFirst())
        }
    }

    /// A delivery as a worker claims it: its endpoint's address and secrets, and its event.
    private struct ClaimedRow: SQLRowDecodable {
        enum Columns {
            static let endpointID = SQLColumn("endpoint_id")
            static let attempts = SQLColumn("attempts")
            static let url = SQLColumn("url")
            static let secret = SQLColumn("secret")
            static let previousSecret = SQLColumn("previous_secret")
            static let previousSecretUntil = SQLColumn("previous_secret_until")
        }

        let endpointID: String
        let attempts: Int64
        let url: String
        let secret: String
        let previousSecret: String?
        let previousSecretUntil: Int64?
        /// The event's columns, read from the same row.
        let event: EventRow

        init(row: SQLRow) throws(SQLDatabaseError) {
            endpointID = try row.text(Columns.endpointID)
            attempts = try row.int(Columns.attempts)
            url = try row.text(Columns.url)
            secret = try row.text(Columns.secret)
            previousSecret = try row.optionalText(Columns.previousSecret)
            previousSecretUntil = try row.optionalInt(Columns.previousSecretUntil)
            event = try EventRow(row: row)
        }
    }
}
