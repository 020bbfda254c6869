/// Reads the token of `Authorization: Bearer <token>`.
///
/// The scheme name is case-insensitive (RFC 9110 §11.1: `bearer`, `BEARER` and `Bearer` are
/// the same), one or more spaces may follow it, and the token is what remains without
/// surrounding spaces. A token longer than 256 characters is no token of this server.
enum BearerToken {
    static let maximumLength = 256

    /// The token, or nil when the field is absent, of another scheme, or empty.
    static func parse(_ field: String?) -> String? {
        guard let field else { return nil }
        let utf8 = field.utf8
        guard utf8.count > 7 else { return nil }
        var index = utf8.startIndex
        for expected in "bearer".utf8 {
            // ASCII letters only: OR-ing 0x20 lower-cases them.
            guard utf8[index] | 0x20 == expected else { return nil }
            index = utf8.index(after: index)
        }
        guard utf8[index] == UInt8(ascii: " ") else { return nil }
        let token = field[index...].trimmingSpaces()
        return token.isEmpty || token.utf8.count > maximumLength ? nil : String(token)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
