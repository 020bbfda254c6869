import Foundation
import Hummingbird
import Logging
import TallyCore

/// Gives every request an identifier, logs it, measures it, and turns every failure into the
/// API's JSON error: stable codes, never a 500 for bad input.
struct ServerMiddleware: RouterMiddleware {
    typealias Context = TallyRequestContext
    let metrics: Metrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let incoming = request.headers[.init("X-Request-Id")!].flatMap { $0.count <= 128 ? $0 : nil }
        context.requestID = incoming ?? UUID().uuidString.lowercased()
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = error.response(requestID: context.requestID)
        } catch let error as TallyServerError {
            response = APIError(error).response(requestID: context.requestID)
        } catch let error as HTTPError {
            response = Self.convert(error).response(requestID: context.requestID)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            response = APIError(.internalServerError, .internalError, "the server failed; the request may be retried").response(requestID: context.requestID)
        }
        response.headers[.init("X-Request-Id")!] = context.requestID
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
