extension SQL {
    /// A statement written the earlier way, with `?` placeholders and a parallel list of values,
    /// as the string-and-binds methods of ``SQLExecutor`` take it.
    ///
    /// The text is scanned once for its placeholders: a `?` inside a quoted string or
    /// identifier, a dollar-quoted body or a comment is text, not a placeholder. Prefer an
    /// interpolated ``SQL`` literal, which is never scanned.
    /// - Parameters:
    ///   - text: one statement with `?` placeholders.
    ///   - binds: the placeholders' values, in order.
    /// - Throws: ``SQLDatabaseError`` (`.other`) when the placeholders and values differ in number.
    public init(positional text: String, _ binds: [SQLValue]) throws(SQLDatabaseError) {
        let segments = Self.splitAtPlaceholders(text)
        guard segments.count - 1 == binds.count else {
            throw SQLDatabaseError(.other, "\(segments.count - 1) placeholders but \(binds.count) values in: \(text)")
        }
        self.init(raw: segments[0])
        pieces.reserveCapacity(segments.count * 2)
        for (value, segment) in zip(binds, segments.dropFirst()) {
            append(value: value)
            append(text: segment)
        }
    }

    /// The text between `?` placeholders (one more piece than there are placeholders), leaving
    /// alone any `?` inside a quoted string or identifier, a dollar-quoted body or a comment.
    static func splitAtPlaceholders(_ sql: String) -> [String] {
        var utf8 = sql.utf8
        guard utf8.contains(UInt8(ascii: "?")) else { return [sql] }
        // Contiguous, so that the scan below reads bytes, not string indices.
        if utf8.withContiguousStorageIfAvailable({ _ in true }) == nil {
            var copy = sql
            copy.makeContiguousUTF8()
            utf8 = copy.utf8
        }
        return utf8.withContiguousStorageIfAvailable { bytes in Self.split(bytes) } ?? [sql]
    }

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var segments: [String] = []
        var start = 0
        var index = 0
        func isIdentifier(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        /// The index just past the first occurrence of `end` at or after `from`, or the end.
        func skip(through end: [UInt8], from: Int) -> Int {
            var cursor = from
            while cursor <= bytes.count - end.count {
                if bytes[cursor..<cursor + end.count].elementsEqual(end) { break }
                cursor += 1
            }
            return min(bytes.count, cursor + end.count)
        }
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            switch byte {
            case UInt8(ascii: "'"):
                // An E'…' string escapes with backslashes; a doubled quote just closes and reopens.
                let escaped = index > 0 && bytes[index - 1] | 0x20 == UInt8(ascii: "e") && (index < 2 || !isIdentifier(bytes[index - 2]))
                var cursor = index + 1
                while cursor < bytes.count && bytes[cursor] != byte {
                    cursor += escaped && bytes[cursor] == UInt8(ascii: "\\") ? 2 : 1
                }
                index = min(bytes.count, cursor + 1)
            case UInt8(ascii: "\""):
                index = skip(through: [byte], from: index + 1)
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                index = skip(through: [UInt8(ascii: "\n")], from: index + 2)
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                index = skip(through: [UInt8(ascii: "*"), UInt8(ascii: "/")], from: index + 2)
            case UInt8(ascii: "$") where index == 0 || !isIdentifier(bytes[index - 1]):
                // A dollar quote opens with $tag$, the tag empty or an identifier not starting with a digit.
                var cursor = index + 1
                while cursor < bytes.count && bytes[cursor] != UInt8(ascii: "$") && isIdentifier(bytes[cursor]) { cursor += 1 }
                let tagIsValid =
                    cursor < bytes.count && bytes[cursor] == UInt8(ascii: "$")
                    && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next)
                index = tagIsValid ? skip(through: Array(bytes[index...cursor]), from: cursor + 1) : index + 1
            case UInt8(ascii: "?"):
                segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                index += 1
                start = index
            default:
                index += 1
            }
        }
        segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]), as: UTF8.self))
        return segments
    }
}
