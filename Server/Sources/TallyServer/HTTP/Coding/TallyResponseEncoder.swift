public import Hummingbird
import TallyCore

/// Writes the handlers' answers as the API's JSON: `TallyAPI.encoder()`'s conventions
/// (snake_case keys, sorted; dates with milliseconds), `Content-Type: application/json`.
public struct TallyResponseEncoder: ResponseEncoder, Sendable {
    /// An encoder.
    public init() {}

    /// The answer 200 with `value` as its JSON body: the most frequent answers (the account, a
    /// purchase's, a spend's) written by ``ResponseJSON``, the bytes `JSONEncoder` would write.
    /// - Throws: what `JSONEncoder` throws for a value it cannot write.
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        let body: ByteBuffer
        if let writable = value as? any ResponseJSONWritable {
            body = ResponseJSON.encode(writable)
        } else {
            body = ByteBuffer(bytes: try TallyAPI.encoder().encode(value))
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }
}
