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
        for (value, segment) in zip(binds, segments.dropFirst()) {
            append(value: value)
            append(text: segment)
        }
    }

    /// The text between `?` placeholders (one more piece than there are placeholders), leaving
    /// alone any `?` inside a quoted string or identifier, a dollar-quoted body or a comment.
    static func splitAtPlaceholders(_ sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        guard bytes.contains(UInt8(ascii: "?")) else { return [sql] }
        var segments: [String] = []
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        func isIdentifier(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        /// Copies through the first occurrence of `end` at or after `from`, or to the end.
        func copy(through end: [UInt8], from: Int) {
            var cursor = from
            while cursor <= bytes.count - end.count {
                if bytes[cursor..<cursor + end.count].elementsEqual(end) { break }
                cursor += 1
            }
            let stop = min(bytes.count, cursor + end.count)
            output.append(contentsOf: bytes[index..<stop])
            index = stop
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
                let stop = min(bytes.count, cursor + 1)
                output.append(contentsOf: bytes[index..<stop])
                index = stop
            case UInt8(ascii: "\""):
                copy(through: [byte], from: index + 1)
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                copy(through: [UInt8(ascii: "\n")], from: index + 2)
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                copy(through: Array("*/".utf8), from: index + 2)
            case UInt8(ascii: "$") where index == 0 || !isIdentifier(bytes[index - 1]):
                // A dollar quote opens with $tag$, the tag empty or an identifier not starting with a digit.
                var cursor = index + 1
                while cursor < bytes.count && bytes[cursor] != UInt8(ascii: "$") && isIdentifier(bytes[cursor]) { cursor += 1 }
                let tagIsValid =
                    cursor < bytes.count && bytes[cursor] == UInt8(ascii: "$")
                    && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next)
                if tagIsValid {
                    copy(through: Array(bytes[index...cursor]), from: cursor + 1)
                } else {
                    output.append(byte)
                    index += 1
                }
            case UInt8(ascii: "?"):
                segments.append(String(decoding: output, as: UTF8.self))
                output.removeAll(keepingCapacity: true)
                index += 1
            default:
                output.append(byte)
                index += 1
            }
        }
        segments.append(String(decoding: output, as: UTF8.self))
        return segments
    }
}
