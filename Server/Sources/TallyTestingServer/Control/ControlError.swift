import Foundation
import Hummingbird
import NIOCore
import TallyTesting

/// A refusal of the control API, answered `{"error":{"code","message"}}`.
struct ControlError: Error {
    let status: HTTPResponse.Status
    let code: String
    let message: String

    /// A body or parameter the endpoint does not take: 400 `invalid_body`.
    static func invalid(_ message: String) -> ControlError {
        ControlError(status: .badRequest, code: "invalid_body", message: message)
    }

    /// The store's refusal, with its code: 404 for what does not exist, 409 for a transaction
    /// or purchase in the wrong state, 500 for the store's own storage, else 400.
    init(_ error: SimulatedAppStoreError) {
        status =
            switch error.code {
            case .notFound: .notFound
            case .invalidState: .conflict
            case .storage: .internalServerError
            default: .badRequest
            }
        code = error.code.rawValue
        message = error.message
    }

    init(status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    var response: Response {
        let body = (try? JSONSerialization.data(withJSONObject: ["error": ["code": code, "message": message]], options: [.sortedKeys])) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Answers the store's refusals and the control API's own as their JSON error.
struct ControlErrorMiddleware: RouterMiddleware {
    typealias Context = ControlRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as SimulatedAppStoreError {
            return ControlError(error).response
        } catch let error as ControlError {
            return error.response
        }
    }
}
