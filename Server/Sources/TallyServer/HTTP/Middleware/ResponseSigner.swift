import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TallyVerify

/// Signs the answers to `/v1/me…` with the server's intermediate key when the request asks
/// (`X-Tally-Nonce`): `X-Tally-Signed-At` and `X-Tally-Signature` cover the nonce, the request
/// (method, target, body, user), the time and the answer's body (``ResponseSignature``). Error
/// answers are not signed: an app grants nothing from them. A request without a nonce, or with
/// one that is not 16 to 64 bytes in base64, is answered unsigned, as is every request once the
/// key has expired (logged); an app that enforces signatures refuses those answers.
struct ResponseSigner: RouterMiddleware {
    typealias Context = TallyRequestContext
    let key: ResponseSigningKey
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[HTTPField.Name(ResponseSignature.nonceHeader)!], let nonce = ResponseSignature.nonceBytes(header) else {
            return try await next(request, context)
        }
        // The request's body is read here, so that its hash can be signed; the handler reads the copy.
        var request = request
        let requestBody = try await request.collectBody(upTo: context.maxUploadSize)
        var response = try await next(request, context)
        guard (200..<300).contains(response.status.code) else { return response }
        guard key.expiresAt > now() else {
            context.logger.error("the response signing key expired at \(key.expiresAt): answers go unsigned; make a new one with tally keys intermediate")
            return response
        }
        // The API's answers are small JSON documents: read whole, signed, sent as read.
        let collected = BodyCollector.Box()
        try await response.body.write(BodyCollector(box: collected))
        let body = collected.buffer
        let signedAt = Int64(now().timeIntervalSince1970.rounded(.down))
        let signed = SignedRequest(
            nonce: nonce, method: request.method.rawValue, target: ResponseSignature.target(path: request.uri.path, query: request.uri.query),
            body: Data(requestBody.readableBytesView), userID: context.identity?.id ?? "")
        let signature = try key.sign(signed, signedAt: signedAt, body: body.readableBytesView)
        response.headers[HTTPField.Name(ResponseSignature.signedAtHeader)!] = String(signedAt)
        response.headers[HTTPField.Name(ResponseSignature.signatureHeader)!] = signature
        response.body = ResponseBody(byteBuffer: body)
        return response
    }
}

/// Keeps what a response body writes, in a box that outlives the writer (which the body consumes).
struct BodyCollector: ResponseBodyWriter {
    final class Box: @unchecked Sendable {
        var buffer = ByteBuffer()
    }

    let box: Box

    mutating func write(_ part: ByteBuffer) async throws {
        var part = part
        box.buffer.writeBuffer(&part)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
