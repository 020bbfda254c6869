public import Foundation

/// JSON coders set up for App Store payloads: dates as epoch milliseconds, the way Apple
/// sends them (fractions of a millisecond, as Xcode writes them, are kept).
public enum AppStoreJSON {
    /// A decoder for App Store payloads.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }

    /// An encoder for App Store payloads, with sorted keys so equal payloads encode equally.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
