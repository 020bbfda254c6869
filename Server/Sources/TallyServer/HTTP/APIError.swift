import Foundation
import Hummingbird
import TallyCore

/// An API failure on its way out: a status, a stable code, a message.
struct APIError: Error {
    let status: HTTPResponse.Status
    var body: APIErrorBody.Detail
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ code: TallyErrorCode, _ message: String) {
        self.status = status
        self.body = APIErrorBody.Detail(code: code, message: message)
    }

    /// The HTTP status of each storage error code.
    init(_ error: TallyServerError) {
        let status: HTTPResponse.Status = switch error.code {
        case .insufficientCredits: .forbidden
        case .notFound: .notFound
        case .transactionBelongsToAnotherUser, .idempotencyKeyReused, .orderMismatch, .reservationClosed, .conflict: .conflict
        case .unauthorized: .unauthorized
        case .verificationFailed: .unprocessableContent
        case .verificationUnavailable, .unavailable: .serviceUnavailable
        case .internalError: .internalServerError
        default: .badRequest
        }
        self.init(status, error.code, error.message)
        body.available = error.available
        body.currency = error.currency
        body.verificationCode = error.verificationCode
    }

    func response(requestID: String) -> Response {
        var body = self.body
        body.requestId = requestID
        let data = (try? TallyAPI.encoder().encode(APIErrorBody(error: body))) ?? Data(#"{"error":{"code":"internal_error"}}"#.utf8)
        var headers = self.headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension APIErrorBody.Detail {
    init(code: TallyErrorCode, message: String) {
        self.init(code: code, message: message, requestId: nil, available: nil, currency: nil, verificationCode: nil)
    }
}
