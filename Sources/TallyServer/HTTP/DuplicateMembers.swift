/// Finds an object member that appears twice in a JSON document, such as
/// `{"amount": 1, "amount": 1000}`.
///
/// `JSONDecoder` keeps one of the two silently, so a proxy, a log or a signature check that
/// read the other would disagree with what the server did; request bodies with a duplicate
/// are refused instead. This is one pass over the bytes that only looks at member names, so
/// the hot path pays little; it does not validate JSON (the decoder does that after it), and
/// whatever it cannot read it leaves to the decoder. Names are compared after their escapes
/// are resolved, so `"a"` and `"\u0061"` are the same name, as they are to the decoder; with
/// `convertingFromSnakeCase`, also after the decoder's key conversion, which reads
/// `idempotency_key` and `idempotencyKey` as the same field.
/// (App Store payloads go through TallyCore's strict parser, which refuses duplicates itself.)
enum DuplicateMembers {
    /// The first member name that appears twice in one object, or nil.
    /// - Parameters:
    ///   - bytes: the document.
    ///   - convertingFromSnakeCase: compare names as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` maps them.
    static func first(in bytes: some Collection<UInt8>, convertingFromSnakeCase: Bool = false) -> String? {
        if let found = bytes.withContiguousStorageIfAvailable({
            first(in: UnsafeBufferPointer(rebasing: $0[...]), snakeCase: convertingFromSnakeCase)
        }) {
            return found
        }
        return Array(bytes).withUnsafeBufferPointer { first(in: $0, snakeCase: convertingFromSnakeCase) }
    }

    private struct Frame {
        let isObject: Bool
        var expectingName: Bool
        var names: [[UInt8]] = []
        /// Built once an object has many members, so a body of thousands of names stays linear.
        var index: Set<[UInt8]>?

        /// Adds a name; false when the object had it already.
        mutating func insert(_ name: [UInt8]) -> Bool {
            if var index {
                self.index = nil  // keeps the set uniquely referenced while it is changed
                let inserted = index.insert(name).inserted
                self.index = index
                return inserted
            }
            if names.contains(name) { return false }
            names.append(name)
            if names.count > 16 {
                index = Set(names)
                names = []
            }
            return true
        }
    }

    private static func first(in bytes: UnsafeBufferPointer<UInt8>, snakeCase: Bool) -> String? {
        var stack: [Frame] = []
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                let start = position + 1
                var escaped = false
                position = start
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    if bytes[position] == UInt8(ascii: "\\") {
                        escaped = true
                        position += 1
                    }
                    position += 1
                }
                guard position < bytes.count else { return nil }  // unterminated: the decoder will say so
                if let top = stack.indices.last, stack[top].isObject, stack[top].expectingName {
                    stack[top].expectingName = false
                    let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    guard let name = escaped ? unescape(raw) : Array(raw) else { return nil }
                    if !stack[top].insert(snakeCase ? camelCase(name) : name) { return String(decoding: name, as: UTF8.self) }
                }
            case UInt8(ascii: "{"):
                stack.append(Frame(isObject: true, expectingName: true))
            case UInt8(ascii: "["):
                stack.append(Frame(isObject: false, expectingName: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
            case UInt8(ascii: ","):
                if let top = stack.indices.last, stack[top].isObject { stack[top].expectingName = true }
            default:
                break
            }
            position += 1
        }
        return nil
    }

    /// What `convertFromSnakeCase` makes of a name: leading and trailing underscores kept,
    /// the words between joined, the first in lower case, each other with its first letter
    /// upper case and the rest lower case (`Idempotency_KEY` → `idempotencyKey`); a name
    /// without an inner underscore is left as it is. Names are compared in
    /// this form only; ASCII letters are all the API's fields use.
    static func camelCase(_ name: [UInt8]) -> [UInt8] {
        let underscore = UInt8(ascii: "_")
        guard let first = name.firstIndex(where: { $0 != underscore }), let last = name.lastIndex(where: { $0 != underscore }),
              name[first...last].contains(underscore) else { return name }
        var result = Array(name[..<first])
        for (index, word) in name[first...last].split(separator: underscore).enumerated() {
            for (offset, byte) in word.enumerated() {
                let isLetter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                result.append(!isLetter ? byte : index > 0 && offset == 0 ? byte & ~0x20 : byte | 0x20)
            }
        }
        result.append(contentsOf: name[(last + 1)...])
        return result
    }

    /// The UTF-8 of a JSON string's content with its escapes resolved; nil when an escape is invalid.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(raw.count)
        var index = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var value: UInt32 = 0
            for offset in 0..<4 {
                let byte = raw[at + offset]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                result.append(byte)
                index += 1
                continue
            }
            guard index + 1 < raw.count else { return nil }
            let escape = raw[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escape)
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(index) else { return nil }
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
                          let low = hex4(index + 2), (0xDC00...0xDFFF).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                result.append(contentsOf: String(Character(unicode)).utf8)
            default:
                return nil
            }
        }
        return result
    }
}
