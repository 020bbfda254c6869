import Foundation
public import Hummingbird
import TallyCore

/// Reads request bodies as the API's clients write them: JSON objects with snake_case
/// members (`TallyAPI.decoder()`), no member named twice, at most the context's
/// `maxUploadSize` bytes.
///
/// Every refusal is a ``TallyAPIError`` that names what is wrong in the body's own terms:
/// `payload_too_large` over the limit, and `invalid_request` for a member named twice, a
/// missing field, a value of the wrong type, a null, or anything that is no JSON object of the
/// expected shape.
///
/// ```swift
/// let body = try await request.decode(as: SpendRequest.self, context: context)
/// // {"currency":"credits","amount":"1"} → 400 invalid_request "amount has the wrong type"
/// ```
public struct TallyRequestDecoder: RequestDecoder, Sendable {
    /// A decoder; the body limit comes from each request's context.
    public init() {}

    /// Decodes the request's body.
    /// - Throws: ``TallyAPIError`` for a body over the limit or not of `type`'s shape.
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try decode(type, from: try await Self.body(of: request, upTo: context.maxUploadSize))
    }

    /// Decodes a body already read.
    /// - Throws: ``TallyAPIError`` `invalid_request` naming the member at fault.
    func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        try Self.refuseDuplicateMembers(buffer, convertingFromSnakeCase: true)
        try Self.refuseNulls(buffer)
        do {
            return try TallyAPI.decoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let DecodingError.keyNotFound(key, _) {
            throw TallyAPIError(.invalidRequest, "the body needs the field \(Self.snake(key.stringValue))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw TallyAPIError(.invalidRequest, "\(Self.path(context.codingPath)) has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw TallyAPIError(.invalidRequest, "\(Self.path(context.codingPath)) must not be null")
        } catch {
            throw TallyAPIError(.invalidRequest, "the body is not a JSON object of the expected shape")
        }
    }

    /// Refuses a `null` anywhere in the body: a member is given or left out. Swift reads a null
    /// optional member as absent, which the API document does not allow, so a client written
    /// from the document and one that sends nulls would be told different things.
    /// - Throws: ``TallyAPIError`` `invalid_request`.
    static func refuseNulls(_ buffer: ByteBuffer) throws {
        var inString = false
        var escaped = false
        var index = buffer.readableBytesView.startIndex
        let bytes = buffer.readableBytesView
        while index < bytes.endIndex {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "n"), bytes[index...].starts(with: "null".utf8) {
                throw TallyAPIError(.invalidRequest, "the body holds a null: leave the member out instead")
            }
            index = bytes.index(after: index)
        }
    }

    /// The request's body.
    /// - Throws: ``TallyAPIError`` `payload_too_large` when it is larger than `limit` bytes.
    static func body(of request: Request, upTo limit: Int) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: limit)
        } catch {
            throw TallyAPIError(.payloadTooLarge, "the request body is larger than \(limit) bytes")
        }
    }

    /// Refuses an object in the body that names a member twice: a decoder would keep one silently.
    /// - Parameter convertingFromSnakeCase: whether `amount_x` and `amountX` name the same member.
    /// - Throws: ``TallyAPIError`` `invalid_request` naming the member.
    static func refuseDuplicateMembers(_ buffer: ByteBuffer, convertingFromSnakeCase: Bool) throws {
        if let name = DuplicateMembers.first(in: buffer.readableBytesView, convertingFromSnakeCase: convertingFromSnakeCase) {
            throw TallyAPIError(.invalidRequest, "the body names the member \"\(name)\" more than once")
        }
    }

    /// A Swift property name as the body spells it: `idempotencyKey` → `idempotency_key`.
    static func snake(_ key: String) -> String {
        key.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }

    /// Where in the body a value is: `items.[2].amount`, or "the body" itself.
    static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the body" : keys.map { $0.intValue.map { "[\($0)]" } ?? snake($0.stringValue) }.joined(separator: ".")
    }
}
