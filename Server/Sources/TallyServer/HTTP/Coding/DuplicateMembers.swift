import Foundation

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

    /// An object being read: where its names start in the arena, and an index once it has many.
    private struct Frame {
        let isObject: Bool
        var expectingName: Bool
        /// The first of this object's names in `Scan.names`.
        let firstName: Int
        /// Built once an object has many members, so a body of thousands of names stays linear.
        var index: Set<ArraySlice<UInt8>>?
    }

    /// Names are written one after another into one buffer, and compared in place, so that a
    /// body with a few members allocates almost nothing.
    private struct Scan {
        var arena: [UInt8] = []
        var names: [Range<Int>] = []
        var stack: [Frame] = []

        init() {
            arena.reserveCapacity(256)
            names.reserveCapacity(16)
            stack.reserveCapacity(4)
        }

        /// Adds the name just written at `arena[start...]` to the innermost object; false when
        /// the object had it already.
        mutating func insertName(from start: Int) -> Bool {
            let top = stack.count - 1
            let name = start..<arena.count
            let candidate = arena[name]
            if var index = stack[top].index {
                stack[top].index = nil  // keeps the set uniquely referenced while it changes
                let inserted = index.insert(candidate).inserted
                stack[top].index = index
                return inserted
            }
            for earlier in names[stack[top].firstName...] where arena[earlier] == candidate { return false }
            names.append(name)
            if names.count - stack[top].firstName > 16 {
                stack[top].index = Set(names[stack[top].firstName...].map { arena[$0] })
            }
            return true
        }

        /// Leaves the innermost object or array; its names are forgotten, so the enclosing
        /// object compares only its own.
        mutating func pop() {
            guard let frame = stack.popLast(), frame.isObject else { return }
            names.removeSubrange(min(frame.firstName, names.count)...)
        }
    }

    private static func first(in bytes: UnsafeBufferPointer<UInt8>, snakeCase: Bool) -> String? {
        guard let base = bytes.baseAddress else { return nil }
        var scan = Scan()
        var position = 0
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                let start = position + 1
                guard let end = closingQuote(base, from: start, count: bytes.count) else { return nil }  // unterminated: the decoder says so
                position = end
                guard let top = scan.stack.indices.last, scan.stack[top].isObject, scan.stack[top].expectingName else { break }
                scan.stack[top].expectingName = false
                let raw = UnsafeBufferPointer(start: base + start, count: end - start)
                let nameStart = scan.arena.count
                if raw.contains(UInt8(ascii: "\\")) {
                    guard unescape(raw, into: &scan.arena) else { return nil }
                } else {
                    scan.arena.append(contentsOf: raw)
                }
                if snakeCase { swiftName(&scan.arena, from: nameStart) }
                if !scan.insertName(from: nameStart) {
                    // The name as the client wrote it (escapes resolved), not as it was compared.
                    var written: [UInt8] = []
                    _ = unescape(raw, into: &written)
                    return String(decoding: written, as: UTF8.self)
                }
            case UInt8(ascii: "{"):
                scan.stack.append(Frame(isObject: true, expectingName: true, firstName: scan.names.count))
            case UInt8(ascii: "["):
                scan.stack.append(Frame(isObject: false, expectingName: false, firstName: scan.names.count))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                scan.pop()
            case UInt8(ascii: ","):
                if let top = scan.stack.indices.last, scan.stack[top].isObject { scan.stack[top].expectingName = true }
            default:
                break
            }
            position += 1
        }
        return nil
    }

    /// The offset of the quote that ends a string whose content starts at `start`, or nil.
    /// `memchr` finds each quote; it ends the string unless an odd run of backslashes precedes it.
    private static func closingQuote(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int? {
        var from = start
        while from < count, let hit = memchr(base + from, Int32(UInt8(ascii: "\"")), count - from) {
            let quote = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var backslashes = 0
            while quote - backslashes - 1 >= start, base[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return quote }
            from = quote + 1
        }
        return nil
    }

    /// What the API decoder makes of a name (`JSONKeys.swiftName(snakeCase:)`), in bytes:
    /// leading and trailing underscores kept, the words between joined, the first in lower
    /// case, each other with its first letter upper case and the rest lower case
    /// (`Idempotency_KEY` → `idempotencyKey`), a name without an inner underscore left as it
    /// is; then `Id` ending a word as `ID` (`order_id` → `orderID`). Names are compared in this
    /// form only; ASCII letters are all the API's fields use.
    static func swiftName(_ name: [UInt8]) -> [UInt8] {
        var buffer = name
        swiftName(&buffer, from: 0)
        return buffer
    }

    /// Converts the name at `buffer[start...]` in place, as ``swiftName(_:)`` does.
    static func swiftName(_ buffer: inout [UInt8], from start: Int) {
        camelCase(&buffer, from: start)
        guard buffer.count - start >= 3 else { return }
        let lower = UInt8(ascii: "a")...UInt8(ascii: "z")
        let digit = UInt8(ascii: "0")...UInt8(ascii: "9")
        for index in (start + 1)..<(buffer.count - 1) where buffer[index] == UInt8(ascii: "I") && buffer[index + 1] == UInt8(ascii: "d") {
            let before = buffer[index - 1]
            guard lower.contains(before) || digit.contains(before), index + 2 == buffer.count || !lower.contains(buffer[index + 2]) else { continue }
            buffer[index + 1] = UInt8(ascii: "D")
        }
    }

    /// Joins a snake_case name at `buffer[start...]` in place, as `convertFromSnakeCase` does.
    private static func camelCase(_ buffer: inout [UInt8], from start: Int) {
        let underscore = UInt8(ascii: "_")
        guard let first = buffer[start...].firstIndex(where: { $0 != underscore }),
            let last = buffer[start...].lastIndex(where: { $0 != underscore }),
            buffer[first...last].contains(underscore)
        else { return }
        var write = first
        var word = 0
        var offset = 0
        for read in first...last {
            let byte = buffer[read]
            if byte == underscore {
                if offset > 0 { word += 1 }
                offset = 0
                continue
            }
            let isLetter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            buffer[write] = !isLetter ? byte : word > 0 && offset == 0 ? byte & ~0x20 : byte | 0x20
            write += 1
            offset += 1
        }
        // The trailing underscores move up behind the joined words.
        let trailing = buffer.count - 1 - last
        for index in 0..<trailing { buffer[write + index] = underscore }
        buffer.removeSubrange((write + trailing)...)
    }

    /// Appends the UTF-8 of a JSON string's content with its escapes resolved; false when an escape is invalid.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into result: inout [UInt8]) -> Bool {
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
            guard index + 1 < raw.count else { return false }
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
                guard var scalar = hex4(index) else { return false }
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
                        let low = hex4(index + 2), (0xDC00...0xDFFF).contains(low)
                    else { return false }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                guard let unicode = Unicode.Scalar(scalar) else { return false }
                result.append(contentsOf: String(Character(unicode)).utf8)
            default:
                return false
            }
        }
        return true
    }
}
