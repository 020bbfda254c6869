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
        context.requestID = incoming ?? Self.newRequestID()
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
        } catch let error as SQLDatabaseError where error.kind == .unavailable {
            // The database is down: the request may be retried, it is not the server's fault to report as 500.
            context.logger.error("database unavailable", metadata: ["error": "\(error)"])
            response = APIError(.serviceUnavailable, .unavailable, "the database is unavailable; retry later").response(requestID: context.requestID)
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

    /// A random (version 4) UUID, lower case. `UUID()` on Linux opens, reads and closes
    /// /dev/urandom on every call; the system generator is one `getrandom` call.
    static func newRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
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
