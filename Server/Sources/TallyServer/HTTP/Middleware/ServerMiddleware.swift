import Foundation
import Hummingbird
import Logging
import TallyCore
import TallySQL

/// Gives every request an identifier, its client's address and the body limit, logs it,
/// measures it, and turns every failure into the API's JSON error: stable codes, never a 500
/// for bad input.
struct ServerMiddleware: RouterMiddleware {
    typealias Context = TallyRequestContext
    let metrics: Metrics
    let addresses: ClientAddressResolver
    let allowedMethods: AllowedMethods
    /// The largest request body read, in bytes (the catalog's `maximum_body_bytes`).
    let maximumBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.requestID = request.headers[.requestID].flatMap { RequestID.accepts($0) ? $0 : nil } ?? RequestID.new()
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        context.maxUploadSize = maximumBodyBytes
        let client = addresses.resolve(
            peer: context.peerAddress, forwardedFor: request.headers[values: .forwardedFor], forwarded: request.headers[values: .forwarded])
        context.clientAddress = client.address
        context.limitAddress = client.ipAddress?.limitGroup ?? client.address
        context.logger[metadataKey: "client"] = .string(client.address)
        metrics.increment("tally_client_addresses_total", ["source": client.source.rawValue])
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = refusal(for: error, request, context: context).response(requestID: context.requestID)
        }
        response.headers[.requestID] = context.requestID
        // Answers are for the caller alone: never sniffed as another type, never kept by a cache.
        response.headers[.contentTypeOptions] = "nosniff"
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

    /// Any failure as the API's error: the API's own as thrown, storage's refusals by their
    /// code, the router's refusals in the API's terms, a database that does not answer as 503
    /// (the request may be retried), and anything else as 500, logged.
    func refusal(for error: any Error, _ request: Request, context: Context) -> TallyAPIError {
        switch error {
        case let error as TallyAPIError:
            return error
        case let error as StorageError:
            return TallyAPIError(error)
        case let error as HTTPError:
            return refusal(for: error, request)
        case let error as SQLDatabaseError where error.kind == .unavailable:
            context.logger.error("database unavailable", metadata: ["error": "\(error)"])
            return TallyAPIError(.unavailable, "the database is unavailable; retry later")
        default:
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return TallyAPIError(.internalError, "the server failed; the request may be retried")
        }
    }

    /// The router's own refusals: no route for the path (404), or none for the method on a
    /// path that exists (405, with the methods it has in `Allow`).
    func refusal(for error: HTTPError, _ request: Request) -> TallyAPIError {
        guard error.status == .notFound, let allow = allowedMethods.allowHeader(for: request.uri.path) else {
            return TallyAPIError(error)
        }
        var refusal = TallyAPIError(.methodNotAllowed, "\(request.method.rawValue) is not allowed here; allowed: \(allow)")
        refusal.allowedMethods = allow
        return refusal
    }
}
