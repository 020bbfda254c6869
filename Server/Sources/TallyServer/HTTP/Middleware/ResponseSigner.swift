import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TallyVerify

/// Signs the answers to `/v1/me…` with the server's intermediate key when the request asks
/// (`X-Tally-Nonce`): `X-Tally-Signed-At` and `X-Tally-Signature` cover the nonce, the path,
/// the time and the body (``ResponseSignature``). Error answers are not signed: an app grants
/// nothing from them. A request without a nonce, or with one that is not 16 to 64 bytes in
/// base64, is answered unsigned, and an app that enforces signatures refuses that answer.
struct ResponseSigner<Context: RequestContext>: RouterMiddleware {
    let key: ResponseSigningKey
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard let header = request.headers[HTTPField.Name(ResponseSignature.nonceHeader)!], let nonce = ResponseSignature.nonceBytes(header),
            (200..<300).contains(response.status.code)
        else { return response }
        // The API's answers are small JSON documents: read whole, signed, sent as read.
        let collected = BodyCollector.Box()
        try await response.body.write(BodyCollector(box: collected))
        let body = collected.buffer
        let signedAt = Int64(now().timeIntervalSince1970.rounded(.down))
        let signature = try key.sign(nonce: nonce, path: request.uri.path, signedAt: signedAt, body: body.readableBytesView)
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
