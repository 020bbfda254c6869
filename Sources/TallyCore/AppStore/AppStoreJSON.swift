public import Foundation

/// JSON coders set up for App Store payloads: dates as epoch milliseconds, the way Apple
/// sends them (fractions of a millisecond, as Xcode writes them, are kept), and member names
/// as Apple spells them (``JSONKeys/appStoreName(_:)``).
public enum AppStoreJSON: Sendable {
    /// A decoder for App Store payloads.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.keyDecodingStrategy = JSONKeys.fromAppStoreNames
        return decoder
    }

    /// Decodes an App Store payload from JSON bytes.
    ///
    /// Reads what ``decoder()`` reads, faster and more strictly: it refuses duplicate members,
    /// invalid UTF-8, numbers that do not fit the field exactly, and nesting deeper than 64.
    /// - Throws: `DecodingError` when the JSON does not fit `type`, or a parse error naming the
    ///   byte offset when it is not JSON.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        let value = try JSONParser.parse(bytes)
        return try PayloadDecoder.decode(type, from: value, at: [])
    }

    /// An encoder for App Store payloads, with sorted keys so equal payloads encode equally.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.keyEncodingStrategy = JSONKeys.toAppStoreNames
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
