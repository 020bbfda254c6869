import Foundation
import PostgresNIO
import TallySQL

/// Statements as postgres-nio sends them: rendered with numbered placeholders, values bound and read back.
extension PostgresDatabase {
    /// The statement as PostgreSQL takes it, rendered with `$1…$n` where its values stand (its
    /// text is not scanned), and its values bound: integers as BIGINT, text as TEXT.
    static func query(_ sql: SQL) -> PostgresQuery {
        let rendered = sql.rendered(for: .postgres)
        return PostgresQuery(unsafeSQL: rendered.text, binds: bindings(rendered.binds))
    }

    /// The values as they are bound, each with the type of ``bindType(_:)``.
    static func bindings(_ binds: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .null: bindings.appendNull()
            case .int(let int): bindings.append(int)
            case .text(let text): bindings.append(text)
            }
        }
        return bindings
    }

    /// The type a value is bound with: BIGINT, TEXT, or none for a null (PostgreSQL infers it).
    static func bindType(_ value: SQLValue) -> PostgresDataType {
        switch value {
        case .null: .null
        case .int: .int8
        case .text: .text
        }
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
