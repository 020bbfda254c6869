import Foundation
import Hummingbird
import NIOCore
import TallyCore

/// A request body whose members are all optional: an empty body reads as `{}`.
protocol ControlOptionalBody: Decodable {}

/// Reads the control API's bodies with the Tally API's decoder (snake_case keys); a body that
/// is not the endpoint's JSON is refused as ``ControlError`` `invalid_body`.
struct ControlRequestDecoder: RequestDecoder {
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        var data = Data(buffer: buffer)
        if data.isEmpty, type is any ControlOptionalBody.Type { data = Data("{}".utf8) }
        do {
            return try TallyAPI.decoder().decode(T.self, from: data)
        } catch {
            throw ControlError.invalid("the body is not the JSON this endpoint takes: \(error)")
        }
    }
}

/// Writes the control API's answers: JSON, snake_case keys, sorted.
struct ControlResponseEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        try Self.response(value)
    }

    /// The answer 200 with `value` as its JSON body.
    static func response(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        let body = try encoder.encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
