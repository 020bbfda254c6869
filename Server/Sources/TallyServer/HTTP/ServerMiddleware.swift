import Foundation
import Hummingbird
import Logging
import TallyCore

/// Gives every request an identifier and its client's address, logs it, measures it, and
/// turns every failure into the API's JSON error: stable codes, never a 500 for bad input.
struct ServerMiddleware: RouterMiddleware {
    typealias Context = TallyRequestContext
    let metrics: Metrics
    let addresses: ClientAddressResolver
    let allowedMethods: AllowedMethods

    /// `HTTPField.Name`, reached through the collection Hummingbird exports.
    typealias FieldName = HTTPFields.Element.Name
    static let requestIDField = FieldName("X-Request-Id")!
    static let forwardedForField = FieldName("X-Forwarded-For")!
    static let forwardedField = FieldName("Forwarded")!
    static let contentTypeOptionsField = FieldName("X-Content-Type-Options")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.requestID = request.headers[Self.requestIDField].flatMap { RequestID.accepts($0) ? $0 : nil } ?? RequestID.new()
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        let client = addresses.resolve(
            peer: context.peerAddress, forwardedFor: request.headers[values: Self.forwardedForField],
            forwarded: request.headers[values: Self.forwardedField])
        context.clientAddress = client.address
        context.limitAddress = client.ipAddress?.limitGroup ?? client.address
        context.logger[metadataKey: "client"] = .string(client.address)
        metrics.increment("tally_client_addresses_total", ["source": client.source.rawValue])
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = error.response(requestID: context.requestID)
        } catch let error as TallyServerError {
            response = APIError(error).response(requestID: context.requestID)
        } catch let error as HTTPError {
            response = convert(error, request).response(requestID: context.requestID)
        } catch let error as SQLDatabaseError where error.kind == .unavailable {
            // The database is down: the request may be retried, it is not the server's fault to report as 500.
            context.logger.error("database unavailable", metadata: ["error": "\(error)"])
            response = APIError(.serviceUnavailable, .unavailable, "the database is unavailable; retry later").response(requestID: context.requestID)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            response = APIError(.internalServerError, .internalError, "the server failed; the request may be retried").response(requestID: context.requestID)
        }
        response.headers[Self.requestIDField] = context.requestID
        // Answers are for the caller alone: never sniffed as another type, never kept by a cache.
        response.headers[Self.contentTypeOptionsField] = "nosniff"
        response.headers[.cacheControl] = "no-store"
        // A HEAD answer has the headers of the GET answer and no body, refusals included.
        if request.method == .head { response = response.createHeadResponse() }
        let route = context.endpointPath ?? "unmatched"
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.increment("tally_http_requests_total", ["route": route, "method": request.method.rawValue, "status": String(response.status.code)])
        metrics.observe("tally_http_request_duration_seconds", ["route": route, "method": request.method.rawValue], seconds: seconds)
        if response.status.code >= 500 {
            context.logger.warning("request answered \(response.status.code)", metadata: ["route": "\(route)"])
        } else {
            context.logger.debug("request", metadata: ["route": "\(route)", "status": "\(response.status.code)"])
        }
        return response
    }

    /// The router's own refusals: no route for the path (404), or none for the method on a
    /// path that exists (405, with the methods it has in `Allow`).
    func convert(_ error: HTTPError, _ request: Request) -> APIError {
        guard error.status == .notFound, let allow = allowedMethods.allowHeader(for: request.uri.path) else {
            return Self.convert(error)
        }
        var refusal = APIError(.methodNotAllowed, .methodNotAllowed, "\(request.method.rawValue) is not allowed here; allowed: \(allow)")
        refusal.headers[.allow] = allow
        return refusal
    }

    static func convert(_ error: HTTPError) -> APIError {
        switch error.status {
        case .contentTooLarge: APIError(.contentTooLarge, .payloadTooLarge, "the request body is too large")
        case .notFound: APIError(.notFound, .notFound, "no such endpoint")
        case .methodNotAllowed: APIError(.methodNotAllowed, .methodNotAllowed, "method not allowed here")
        case .unauthorized: APIError(.unauthorized, .unauthorized, error.body ?? "authentication required")
        default: APIError(error.status, error.status.code >= 500 ? .internalError : .invalidRequest, error.body ?? error.status.reasonPhrase)
        }
    }
}
