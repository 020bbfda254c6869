import Foundation
import Hummingbird
import TallyCore

/// The webhook endpoints and the event stream, for the app's team with the secret key:
/// `/v1/admin/webhooks…` (create, list, read, change, rotate the secret, delete; deliveries,
/// their attempts, replay) and `/v1/admin/events` (every event, oldest first; a reader of them
/// forgotten with `DELETE /v1/admin/events/readers/{name}`).
struct WebhookController {
    let storage: WebhookStore
    /// How long the previous secret keeps signing after a rotation.
    var rotationOverlap: TimeInterval = 86_400

    struct CreateBody: Decodable {
        var url: String
        var description: String?
        var eventTypes: [TallyEventType]?
        /// A secret of the team's own; a new one is made when absent.
        var secret: String?
    }

    struct RotateBody: Decodable {
        var secret: String?
    }

    struct EndpointList: Codable, Sendable {
        var endpoints: [WebhookEndpoint]
    }

    struct AttemptList: Codable, Sendable {
        var attempts: [WebhookAttempt]
    }

    var endpoints: RouteCollection<AdminRequestContext> {
        RouteCollection(context: AdminRequestContext.self)
            .post("webhooks", use: create)
            .get("webhooks", use: list)
            .get("webhooks/:id", use: read)
            .patch("webhooks/:id", use: update)
            .delete("webhooks/:id", use: delete)
            .post("webhooks/:id/rotate-secret", use: rotate)
            .get("webhooks/:id/deliveries", use: deliveries)
            .get("webhooks/:id/deliveries/:event/attempts", use: attempts)
            .post("webhooks/:id/deliveries/:event/replay", use: replay)
            .get("events", use: events)
            .delete("events/readers/:name", use: forgetReader)
    }

    static func secret(_ text: String?) throws -> WebhookSecret {
        guard let text else { return WebhookSecret.generate() }
        guard let secret = WebhookSecret(text) else {
            throw TallyAPIError(.invalidRequest, "secret must be whsec_ and the base64 of 24 to 64 bytes")
        }
        return secret
    }

    func create(_ request: Request, context: AdminRequestContext) async throws -> EditedResponse<WebhookEndpoint> {
        let body = try await request.decode(as: CreateBody.self, context: context)
        let endpoint = try await storage.createEndpoint(
            url: body.url, description: body.description ?? "", eventTypes: body.eventTypes ?? [], secret: try Self.secret(body.secret))
        return EditedResponse(status: .created, response: endpoint)
    }

    func list(_ request: Request, context: AdminRequestContext) async throws -> EndpointList {
        EndpointList(endpoints: try await storage.endpoints())
    }

    func read(_ request: Request, context: AdminRequestContext) async throws -> WebhookEndpoint {
        try await storage.endpoint(id: context.parameters.identifier("id"))
    }

    func update(_ request: Request, context: AdminRequestContext) async throws -> WebhookEndpoint {
        let change = try await request.decode(as: WebhookEndpointChange.self, context: context)
        return try await storage.updateEndpoint(id: context.parameters.identifier("id"), change: change)
    }

    func delete(_ request: Request, context: AdminRequestContext) async throws -> HTTPResponse.Status {
        try await storage.deleteEndpoint(id: context.parameters.identifier("id"))
        return .noContent
    }

    func rotate(_ request: Request, context: AdminRequestContext) async throws -> WebhookEndpoint {
        // Every member is optional, so no body at all is a rotation to a new random secret.
        let bytes = try await TallyRequestDecoder.body(of: request, upTo: context.maxUploadSize)
        let body = bytes.readableBytes == 0 ? RotateBody() : try TallyRequestDecoder().decode(RotateBody.self, from: bytes)
        return try await storage.rotateSecret(
            id: context.parameters.identifier("id"), secret: try Self.secret(body.secret), overlap: rotationOverlap)
    }

    func deliveries(_ request: Request, context: AdminRequestContext) async throws -> WebhookDeliveryPage {
        let query = request.uri.queryParameters
        return try await storage.deliveries(
            endpointID: context.parameters.identifier("id"), status: query.string("status"), limit: try query.pageSize(),
            cursor: try query.ledgerCursor())
    }

    func attempts(_ request: Request, context: AdminRequestContext) async throws -> AttemptList {
        AttemptList(
            attempts: try await storage.attempts(
                endpointID: context.parameters.identifier("id"), eventID: context.parameters.identifier("event")))
    }

    func replay(_ request: Request, context: AdminRequestContext) async throws -> EditedResponse<WebhookDelivery> {
        let delivery = try await storage.replay(
            endpointID: context.parameters.identifier("id"), eventID: context.parameters.identifier("event"))
        return EditedResponse(status: .accepted, response: delivery)
    }

    func forgetReader(_ request: Request, context: AdminRequestContext) async throws -> HTTPResponse.Status {
        let name = try context.parameters.identifier("name")
        guard let reader = EventReader(rawValue: name) else { throw TallyAPIError(.invalidRequest, "name must be api or event_log") }
        try await storage.forgetEvents(for: reader)
        return .noContent
    }

    func events(_ request: Request, context: AdminRequestContext) async throws -> TallyEventPage {
        let query = request.uri.queryParameters
        var type: TallyEventType?
        if let text = query.string("type") {
            guard let known = TallyEventType(known: text) else { throw TallyAPIError(.invalidRequest, "type is not an event type") }
            type = known
        }
        var after: Int64?
        if let text = query.string("after") {
            guard let value = Int64(text), value >= 0 else { throw TallyAPIError(.invalidRequest, "after must be a sequence number") }
            after = value
        }
        let user = query.string("user_id")
        if let user, user.isEmpty || user.unicodeScalars.count > 128 || user.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw TallyAPIError(.invalidRequest, "user_id must be 1 to 128 characters, none of them a control character")
        }
        return try await storage.events(for: .api, after: after, type: type, userID: user, limit: try query.pageSize(maximum: 1000))
    }
}
