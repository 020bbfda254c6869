import Foundation
import Hummingbird
import TallyCore

/// A value written without `JSONEncoder`: it writes the very bytes `TallyAPI.encoder()` would
/// (snake_case keys, sorted; ISO 8601 dates with milliseconds; nil optionals left out; `/` not
/// escaped). Only what every request of the hot paths writes conforms (the account, a
/// purchase's and a spend's answers, as sent and as kept for replays, and events' data); the
/// rest go through `Codable`.
protocol ResponseJSONWritable: Encodable {
    /// Writes the value as one JSON value.
    func write(to json: inout ResponseJSON)
}

/// Appends JSON to bytes, byte for byte as Foundation's `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` writes it. The caller writes keys in sorted order; the writer adds
/// the commas.
struct ResponseJSON {
    /// The bytes written, in an array rather than a `ByteBuffer`: a byte appended to an array is
    /// a store, to a buffer a call with its capacity and uniqueness checks (writing the answer
    /// was 3.8% of the process at `GET /v1/me`, docs/benchmarks.md); the array is copied into a
    /// buffer once, at the end.
    private var bytes: [UInt8] = []
    /// Whether the next key or element is the first of its object or array.
    private var first = true

    init(capacity: Int = 1_024) {
        bytes.reserveCapacity(capacity)
    }

    /// What was written, as a buffer.
    var buffer: ByteBuffer { ByteBuffer(bytes: bytes) }

    /// Encodes a value into a buffer.
    static func encode(_ value: some ResponseJSONWritable) -> ByteBuffer {
        var json = ResponseJSON()
        value.write(to: &json)
        return json.buffer
    }

    /// Encodes a value as text (a column's JSON).
    static func text(_ value: some ResponseJSONWritable) -> String {
        var json = ResponseJSON()
        value.write(to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    private mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    // MARK: - Containers

    mutating func object(_ body: (inout ResponseJSON) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        first = true
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        first = false
    }

    mutating func array<Element>(_ elements: [Element], _ body: (inout ResponseJSON, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        first = true
        for element in elements {
            separate()
            body(&self, element)
            first = false
        }
        bytes.append(UInt8(ascii: "]"))
        first = false
    }

    private mutating func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
    }

    /// Writes `"key":` after a comma when needed. Keys are plain ASCII and never need escaping.
    private mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        write(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        first = true
    }

    // MARK: - Members

    mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
        first = false
    }

    mutating func field(_ name: StaticString, _ value: Int64) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
        first = false
    }

    mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        write(value ? "true" : "false")
        first = false
    }

    mutating func field(_ name: StaticString, _ value: Date) {
        field(name, TallyAPI.timestamp(value))
    }

    mutating func field(_ name: StaticString, _ value: UUID) {
        field(name, value.uuidString)
    }

    mutating func field(_ name: StaticString, _ values: [String]) {
        key(name)
        array(values) { json, value in json.string(value) }
        first = false
    }

    /// Leaves the member out when nil, as synthesized `Codable` does (`encodeIfPresent`).
    mutating func field(_ name: StaticString, _ value: String?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: StaticString, _ value: Int64?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: StaticString, _ values: [String]?) {
        if let values { field(name, values) }
    }

    mutating func field(_ name: StaticString, _ value: Date?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: StaticString, _ value: Bool?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: StaticString, _ value: some ResponseJSONWritable) {
        key(name)
        value.write(to: &self)
        first = false
    }

    mutating func field<Value: ResponseJSONWritable>(_ name: StaticString, _ value: Value?) {
        if let value { field(name, value) }
    }

    mutating func field<Element: ResponseJSONWritable>(_ name: StaticString, _ elements: [Element]) {
        key(name)
        array(elements) { json, element in element.write(to: &json) }
        first = false
    }

    mutating func field<Element: ResponseJSONWritable>(_ name: StaticString, _ elements: [Element]?) {
        if let elements { field(name, elements) }
    }

    // MARK: - Strings

    /// Writes a JSON string: `"` and `\` escaped, `\b \f \n \r \t` by name, the other
    /// control characters as `\u00XX` (lowercase hex), everything else (`/`, non-ASCII) as is.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index])) }
                escape(byte)
                start = index + 1
            }
            if start < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            write("u00")
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }
}
