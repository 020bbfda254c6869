import Foundation
import Hummingbird
import TallyCore

/// The console's addresses: their query fields read as a browser writes them, and written
/// back for links (paging, exports, the language switch).
enum ConsoleQuery {
    /// The address's query fields, read as a GET form writes them (`+` for a space, `%2B` for a
    /// `+`), from the raw query: the framework's `queryParameters` has already turned `%2B` into
    /// `+`, which could no longer be told from a space. The first of a repeated name wins; a
    /// field with a bad escape, bytes that are not UTF-8 or a NUL character reads as absent.
    static func fields(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// A query field, nil when absent or empty (an empty select of a GET form).
    static func value(_ fields: [String: String], _ name: String) -> String? {
        guard let value = fields[name], !value.isEmpty else { return nil }
        return value
    }

    /// The page size: `limit`, 50 when absent.
    /// - Throws: ``TallyAPIError`` `invalid_request` for a limit outside 1 to 200.
    static func limit(_ fields: [String: String]) throws -> Int {
        guard let text = value(fields, "limit") else { return 50 }
        guard let limit = Int(text), (1...200).contains(limit) else { throw TallyAPIError(.invalidRequest, "limit must be 1 to 200") }
        return limit
    }

    /// An id from the path: one no row can have (a NUL, over 128 characters) is not found.
    /// - Throws: ``ConsoleRefusal/notFound``.
    static func identifier(_ text: String) throws -> String {
        guard !text.isEmpty, text.count <= 128, !text.contains("\u{0}") else { throw ConsoleRefusal.notFound }
        return text
    }

    /// `?a=1&b=2`, sorted by name; "" without fields.
    static func string(_ fields: [String: String]) -> String {
        guard !fields.isEmpty else { return "" }
        return "?" + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(escape($0.value))" }.joined(separator: "&")
    }

    // Made once: a page of links escapes thousands of values.
    private static let valueCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~/"))
    private static let pathCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    static func escape(_ text: String) -> String {
        // Most values (days, codes, ids) need nothing escaped.
        if text.utf8.allSatisfy({ Self.plain($0) || $0 == UInt8(ascii: "/") }) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: valueCharacters) ?? ""
    }

    static func pathEscape(_ text: String) -> String {
        if text.utf8.allSatisfy(Self.plain) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: pathCharacters) ?? ""
    }

    /// An ASCII letter or digit, or `-._~`: left as it is by both escapes.
    private static func plain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// The page's address with `lang` set.
    static func withLanguage(_ request: Request, _ language: String) -> String {
        var kept: [String: String] = [:]
        for (name, value) in fields(request) where name != "lang" { kept[name] = value }
        kept["lang"] = language
        return request.uri.path + string(kept)
    }

    /// A name or value of a query or form: `+` for a space, `%XX` for a byte; nil for a bad
    /// escape, bytes that are not UTF-8 or a NUL character.
    static func decode(_ text: Substring) -> String? {
        guard let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding, !decoded.contains("\u{0}") else {
            return nil
        }
        return decoded
    }
}
