import Hummingbird
import TallyCore

/// The fields of a form the console posts: urlencoded, as browsers write it.
enum ConsoleForm {
    /// The largest form read.
    static let maximumBytes = 64 * 1024

    /// The form fields of a urlencoded body (at most 64 kB); the first of a repeated name wins.
    /// - Throws: ``TallyAPIError`` `invalid_request` for another content type, a body that is not
    ///   urlencoded UTF-8, or a NUL character.
    static func read(_ request: Request) async throws -> [String: String] {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            throw TallyAPIError(.invalidRequest, "a form must be sent as application/x-www-form-urlencoded")
        }
        var request = request
        let buffer = try await request.collectBody(upTo: maximumBytes)
        guard let fields = fields(String(buffer: buffer)) else { throw TallyAPIError(.invalidRequest, "the form is not valid urlencoded text") }
        return fields
    }

    /// Reads `name=value&…` as browsers write it (`+` for a space, `%XX` for a byte); nil for a
    /// bad escape, bytes that are not UTF-8 or a NUL character.
    static func fields(_ text: String) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = ConsoleQuery.decode(parts[0]), let value = ConsoleQuery.decode(parts.count > 1 ? parts[1] : "") else {
                return nil
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}
