import Foundation
import PostgresNIO
import TallySQL

/// Statements as postgres-nio sends them: placeholders numbered, values bound and read back.
extension PostgresDatabase {
    /// Rewrites `?` placeholders as `$1, $2, …`, leaving alone any `?` inside a quoted string or
    /// identifier, a dollar-quoted body or a comment.
    /// - Returns: the statement and how many placeholders it has.
    static func numberingPlaceholders(_ sql: String) -> (sql: String, count: Int) {
        let bytes = Array(sql.utf8)
        guard bytes.contains(UInt8(ascii: "?")) else { return (sql, 0) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var count = 0
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
                count += 1
                output.append(contentsOf: "$\(count)".utf8)
                index += 1
            default:
                output.append(byte)
                index += 1
            }
        }
        return (String(decoding: output, as: UTF8.self), count)
    }

    /// The statement with numbered placeholders and its values bound: integers as BIGINT, text as TEXT.
    /// - Throws: ``SQLDatabaseError`` (`.other`) when the placeholders and values differ in number.
    static func query(_ sql: String, _ binds: [SQLValue]) throws(SQLDatabaseError) -> PostgresQuery {
        let (numbered, count) = numberingPlaceholders(sql)
        guard count == binds.count else {
            throw SQLDatabaseError(.other, "\(count) placeholders but \(binds.count) values in: \(sql)")
        }
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .null: bindings.appendNull()
            case .int(let int): bindings.append(int)
            case .text(let text): bindings.append(text)
            }
        }
        return PostgresQuery(unsafeSQL: numbered, binds: bindings)
    }

    /// A result row by lower-case column name.
    static func row(_ row: PostgresRow) throws(SQLDatabaseError) -> SQLRow {
        var values: [String: SQLValue] = [:]
        for cell in row {
            values[cell.columnName.lowercased()] = try value(cell)
        }
        return SQLRow(values: values)
    }

    /// One cell: integers (and booleans, as 0 or 1, as SQLite has them) as `.int`, text as `.text`.
    /// A NUMERIC (what SUM over BIGINT returns) is `.int` when it is whole and fits, else its text.
    static func value(_ cell: PostgresCell) throws(SQLDatabaseError) -> SQLValue {
        guard let bytes = cell.bytes else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8:
                return .int(try cell.decode(Int64.self))
            case .oid where cell.format == .binary:
                var buffer = bytes
                guard let oid = buffer.readInteger(as: UInt32.self) else { throw SQLDatabaseError(.decoding, "column \(cell.columnName): a short oid") }
                return .int(Int64(oid))
            case .bool:
                return .int(try cell.decode(Bool.self) ? 1 : 0)
            case .numeric:
                if cell.format == .binary, let int = wholeNumber(fromBinaryNumeric: bytes) { return .int(int) }
                let decimal = try cell.decode(Decimal.self)
                if cell.format == .text, let int = Int64("\(decimal)") { return .int(int) }
                return .text("\(decimal)")
            case .float4, .float8:
                // A fraction is never truncated into an amount: it stays text, which SQLRow.int refuses.
                let double = try cell.decode(Double.self)
                if let int = Int64(exactly: double) { return .int(int) }
                return .text("\(double)")
            case .text, .varchar, .bpchar, .name, .char, .json, .jsonb, .uuid, .unknown:
                return .text(try cell.decode(String.self))
            case .void:
                return .null
            default:
                throw SQLDatabaseError(.decoding, "column \(cell.columnName) has type \(cell.dataType), neither integer nor text")
            }
        } catch let error as SQLDatabaseError {
            throw error
        } catch {
            throw SQLDatabaseError(.decoding, "column \(cell.columnName): \(String(reflecting: error))")
        }
    }

    /// Reads a NUMERIC in binary form (digit count, weight, sign, scale, then base-10000 digits).
    /// - Returns: its value when it is whole and fits in 64 bits, else nil.
    static func wholeNumber(fromBinaryNumeric bytes: ByteBuffer) -> Int64? {
        var buffer = bytes
        guard let digitCount = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
            let sign = buffer.readInteger(as: UInt16.self), buffer.readInteger(as: Int16.self) != nil,
            sign == 0 || sign == 0x4000
        else { return nil }  // NaN and infinities have other signs
        var digits: [Int64] = []
        for _ in 0..<max(0, Int(digitCount)) {
            guard let digit = buffer.readInteger(as: Int16.self) else { return nil }
            digits.append(Int64(digit))
        }
        guard !digits.isEmpty else { return 0 }
        // Digit i is worth 10000^(weight - i): those past `weight` are the fraction.
        if digits.count > Int(weight) + 1, digits[max(0, Int(weight) + 1)...].contains(where: { $0 != 0 }) { return nil }
        guard weight >= 0 else { return 0 }
        var magnitude: Int64 = 0
        for position in 0...Int(weight) {
            let digit = position < digits.count ? digits[position] : 0
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10_000)
            let (sum, overflow2) = shifted.addingReportingOverflow(digit)
            if overflow || overflow2 { return nil }
            magnitude = sum
        }
        return sign == 0x4000 ? -magnitude : magnitude
    }
}
