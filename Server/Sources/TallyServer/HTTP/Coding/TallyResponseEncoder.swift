public import Hummingbird
import TallyCore

/// Writes the handlers' answers as the API's JSON: `TallyAPI.encoder()`'s conventions
/// (snake_case keys, sorted; dates with milliseconds), `Content-Type: application/json`.
public struct TallyResponseEncoder: ResponseEncoder, Sendable {
    /// An encoder.
    public init() {}

    /// The answer 200 with `value` as its JSON body.
    /// - Throws: what `JSONEncoder` throws for a value it cannot write.
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        let data = try TallyAPI.encoder().encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
