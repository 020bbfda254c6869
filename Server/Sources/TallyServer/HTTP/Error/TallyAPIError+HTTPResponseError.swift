import Foundation
public import Hummingbird
import TallyCore

extension TallyAPIError: HTTPResponseError {
    /// The status its code declares.
    public var status: HTTPResponse.Status { code.status }

    /// The answer: the status, `{"error": {…}}` with the request's identifier, and `Retry-After`
    /// or `Allow` when the error carries them.
    /// - Parameters:
    ///   - request: the request that failed.
    ///   - context: its context, which knows the request's identifier.
    /// - Returns: the answer to send.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response(requestID: (context as? any CallerContext)?.requestID)
    }

    /// The answer, naming the request's identifier in the body.
    func response(requestID: String?) -> Response {
        var detail = self.detail
        detail.requestID = requestID
        let data = (try? TallyAPI.encoder().encode(APIErrorBody(error: detail))) ?? Data(#"{"error":{"code":"internal_error"}}"#.utf8)
        var headers: HTTPFields = [:]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let allowedMethods { headers[.allow] = allowedMethods }
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
