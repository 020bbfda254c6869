import Foundation
import NIOCore
import PostgresNIO
import TallySQL
import Testing

@testable import TallyServer

@Suite struct PostgresCellTests {
    /// A NUMERIC in PostgreSQL's binary form: digit count, weight, sign, display scale, then
    /// base-10000 digits, each a big-endian 16-bit integer.
    static func numeric(weight: Int16, sign: UInt16 = 0, scale: Int16 = 0, _ digits: [Int16], count: Int16? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(count ?? Int16(digits.count))
        buffer.writeInteger(weight)
        buffer.writeInteger(sign)
        buffer.writeInteger(scale)
        for digit in digits { buffer.writeInteger(digit) }
        return buffer
    }

    static let negative: UInt16 = 0x4000

    /// What SUM and COUNT can return, and the whole number each is, if it is one that fits.
    static let numerics: [(String, ByteBuffer, Int64?)] = [
        ("0", numeric(weight: 0, []), 0),
        ("42", numeric(weight: 0, [42]), 42),
        ("10000", numeric(weight: 1, [1]), 10_000),
        ("123456789", numeric(weight: 2, [1, 2345, 6789]), 123_456_789),
        ("-52", numeric(weight: 0, sign: negative, [52]), -52),
        ("2.0000", numeric(weight: 0, scale: 4, [2, 0]), 2),
        ("1.5", numeric(weight: 0, scale: 1, [1, 5000]), nil),
        ("0.5", numeric(weight: -1, scale: 1, [5000]), nil),
        ("Int64.max", numeric(weight: 4, [922, 3372, 368, 5477, 5807]), .max),
        ("Int64.max + 1", numeric(weight: 4, [922, 3372, 368, 5477, 5808]), nil),
        ("-Int64.max", numeric(weight: 4, sign: negative, [922, 3372, 368, 5477, 5807]), -.max),
        ("NaN", numeric(weight: 0, sign: 0xC000, []), nil),
        ("+Infinity", numeric(weight: 0, sign: 0xD000, []), nil),
        ("two digits announced, one sent", numeric(weight: 1, [1], count: 2), nil),
        (
            "a short header",
            {
                var buffer = ByteBuffer()
                buffer.writeInteger(Int16(1))
                return buffer
            }(), nil
        ),
    ]

    @Test(arguments: numerics)
    func binaryNumericsAreWholeNumbersOnlyWhenExact(name: String, bytes: ByteBuffer, expected: Int64?) {
        #expect(TallyServer.PostgresDatabase.wholeNumber(fromBinaryNumeric: bytes) == expected, "\(name)")
    }

    static func cell(_ type: PostgresDataType, _ format: PostgresFormat = .binary, _ write: ((inout ByteBuffer) -> Void)?) -> PostgresCell {
        let bytes = write.map { write in
            var buffer = ByteBuffer()
            write(&buffer)
            return buffer
        }
        return PostgresCell(bytes: bytes, dataType: type, format: format, columnName: "value", columnIndex: 0)
    }

    static let cells: [(String, PostgresCell, SQLValue)] = [
        ("NULL", cell(.int8, .binary, nil), .null),
        ("int8", cell(.int8) { $0.writeInteger(Int64(-9_000_000_000)) }, .int(-9_000_000_000)),
        ("int4", cell(.int4) { $0.writeInteger(Int32(60)) }, .int(60)),
        ("int2", cell(.int2) { $0.writeInteger(Int16(-7)) }, .int(-7)),
        ("oid", cell(.oid) { $0.writeInteger(UInt32(16_384)) }, .int(16_384)),
        ("bool true", cell(.bool) { $0.writeInteger(UInt8(1)) }, .int(1)),
        ("bool false", cell(.bool) { $0.writeInteger(UInt8(0)) }, .int(0)),
        ("text", cell(.text) { $0.writeString("credits") }, .text("credits")),
        ("varchar", cell(.varchar) { $0.writeString("ґанок") }, .text("ґанок")),
        ("SUM 60", cell(.numeric) { $0.writeImmutableBuffer(numeric(weight: 0, [60])) }, .int(60)),
        ("SUM 1.5", cell(.numeric) { $0.writeImmutableBuffer(numeric(weight: 0, scale: 1, [1, 5000])) }, .text("1.5")),
        ("numeric as text", cell(.numeric, .text) { $0.writeString("123") }, .int(123)),
        ("numeric as text, a fraction", cell(.numeric, .text) { $0.writeString("0.25") }, .text("0.25")),
        ("float8, whole", cell(.float8) { $0.writeInteger(2.0.bitPattern) }, .int(2)),
        // A fraction is never truncated into an amount: it stays text, which SQLRow.int refuses.
        ("float8, a fraction", cell(.float8) { $0.writeInteger(2.5.bitPattern) }, .text("2.5")),
    ]

    @Test(arguments: cells)
    func cellsBecomeIntegersOrText(name: String, cell: PostgresCell, expected: SQLValue) throws {
        #expect(try TallyServer.PostgresDatabase.value(cell) == expected, "\(name)")
    }

    @Test(arguments: [
        cell(.bytea) { $0.writeBytes([0xDE, 0xAD]) },
        cell(.timestamptz) { $0.writeInteger(Int64(0)) },
        cell(.int8) { $0.writeInteger(Int16(1)) },  // too short for a BIGINT
    ])
    func anythingElseIsADecodingError(cell: PostgresCell) {
        let error = #expect(throws: SQLDatabaseError.self) { try TallyServer.PostgresDatabase.value(cell) }
        #expect(error?.kind == .decoding)
        #expect(error?.message.contains("value") == true)
    }
}
