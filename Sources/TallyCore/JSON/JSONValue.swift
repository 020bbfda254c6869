/// A parsed JSON document, as the payload decoder reads it.
///
/// Numbers keep their text so that integers convert exactly and each target type decides
/// what it accepts. Objects keep their members in a dictionary; a duplicated member is an
/// error, since no App Store payload has one and a reader must not pick one silently.
enum JSONValue {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON number: exact when it is an integer literal that fits in 64 bits.
struct JSONNumber {
    /// The value of an integer literal (no fraction, no exponent) that fits in `Int64`.
    let integer: Int64?
    /// The nearest `Double`.
    let double: Double
}

/// A strict RFC 8259 parser: no trailing commas, comments, NaN, leading zeros, unescaped
/// control characters or invalid UTF-8; nesting is limited so no document exhausts the stack.
struct JSONParser {
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ input: some Collection<UInt8>) throws -> JSONValue {
        if let result = try input.withContiguousStorageIfAvailable({ try parse(buffer: $0) }) {
            return result
        }
        return try Array(input).withUnsafeBufferPointer { try parse(buffer: $0) }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var parser = JSONParser(bytes: buffer)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == buffer.count else { throw parser.failure("data after the end of the document") }
        return value
    }

    private func failure(_ reason: String) -> Failure {
        Failure(offset: position, reason: reason)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        guard position < bytes.count else { throw failure("unexpected end of document") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw failure("unexpected end of document") }
        for index in 0..<count where bytes[position + index] != literal.utf8Start[index] {
            throw failure("invalid literal")
        }
        position += count
    }

    private mutating func parseObject(depth: Int) throws -> JSONValue {
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            guard members.updateValue(value, forKey: key) == nil else { throw failure("duplicate member \"\(key)\"") }
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of document") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            position += 1
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of document") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            position += 1
            return .array(elements)
        }
    }

    private mutating func parseNumber() throws -> JSONNumber {
        let start = position
        var isIntegerLiteral = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw failure("a number needs digits") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if isDigit(bytes[position]) {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        } else {
            throw failure("a number needs digits")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isIntegerLiteral = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("a fraction needs digits") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isIntegerLiteral = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("an exponent needs digits") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
        if isIntegerLiteral, let integer = Self.int64(text) {
            return JSONNumber(integer: integer, double: Double(integer))
        }
        guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite,
            double != 0 || !Self.hasNonZeroDigit(text)
        else {
            // Infinity, and a non-zero literal that underflows to zero (1e-400), are out of range.
            throw failure("number out of range")
        }
        return JSONNumber(integer: nil, double: double)
    }

    /// Whether a number literal has a non-zero digit before its exponent.
    private static func hasNonZeroDigit(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in text {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return true }
        }
        return false
    }

    /// The value of an optionally signed run of digits, or nil when it does not fit.
    private static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var magnitude: UInt64 = 0
        while index < text.count {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(text[index] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func parseString() throws -> String {
        position += 1  // the opening quote
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                return try validUTF8(raw)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("unescaped control character in a string") }
            position += 1
        }
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try utf8.withUnsafeBufferPointer { try validUTF8($0) }
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw failure("unexpected end of document") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                            bytes[position + 1] == UInt8(ascii: "u")
                        else {
                            throw failure("unpaired surrogate")
                        }
                        position += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw failure("unpaired surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("invalid escape") }
                    utf8.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    throw failure("invalid escape")
                }
            default:
                if byte < 0x20 { throw failure("unescaped control character in a string") }
                utf8.append(byte)
                position += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("unexpected end of document") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private func validUTF8(_ raw: UnsafeBufferPointer<UInt8>) throws -> String {
        if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        // Decoding repairs invalid sequences; a repaired string re-encodes differently.
        let decoded = String(decoding: raw, as: UTF8.self)
        guard decoded.utf8.elementsEqual(raw) else { throw failure("invalid UTF-8 in a string") }
        return decoded
    }
}
