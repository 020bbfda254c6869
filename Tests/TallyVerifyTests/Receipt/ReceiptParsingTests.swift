import Foundation
import Testing

@testable import TallyVerify

/// The BER reader and the date parser on their own.
@Suite struct ReceiptParsingTests {
    // MARK: - Dates

    @Test(arguments: [
        ("2024-02-23T10:15:07Z", 1_708_683_307.0),
        ("2020-07-22T18:33:15+0100", 1_595_439_195),
        ("2020-07-22T18:33:15+01:00", 1_595_439_195),
        ("2020-07-22T16:03:15-0130", 1_595_439_195),
        ("2020-07-22t17:33:15z", 1_595_439_195),
        ("2013-08-01T07:00:00.250Z", 1_375_340_400.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("1970-01-01T00:00:00Z", 0),
        ("4001-01-01T00:00:00+0000", 64_092_211_200),
    ])
    func rfc3339DatesParse(text: String, seconds: Double) {
        #expect(ReceiptDate.parse(text.utf8)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "", "2020-07-22", "2020-07-22T18:33:15", "2020-07-22 18:33:15Z", "2023-02-29T00:00:00Z",
        "2020-13-01T00:00:00Z", "2020-07-22T24:00:00Z", "2020-07-22T18:60:00Z", "2020-07-22T18:33:60Z",
        "2020-07-22T18:33:15+1", "2020-07-22T18:33:15+2400", "2020-07-22T18:33:15.Z", "2020-07-22T18:33:15Zjunk",
        "２０２０-07-22T18:33:15Z", "2015-11-18 04:34:41 Etc/GMT",
    ])
    func malformedDatesDoNotParse(text: String) {
        #expect(ReceiptDate.parse(text.utf8) == nil)
    }

    // MARK: - BER

    @Test func indefiniteLengthsAndChunkedStringsRead() throws {
        // SEQUENCE (indefinite) { OCTET STRING (constructed, indefinite) { "ab", "c" }, INTEGER 5 }
        let bytes: [UInt8] = [0x30, 0x80, 0x24, 0x80, 0x04, 0x02, 0x61, 0x62, 0x04, 0x01, 0x63, 0x00, 0x00, 0x02, 0x01, 0x05, 0x00, 0x00]
        var reader = BERReader(bytes)
        let root = try reader.root()
        #expect(root.indefinite && root.end == bytes.count)
        let children = try reader.children(of: root)
        #expect(children.count == 2)
        #expect(try reader.octets(of: children[0]) == Array("abc".utf8))
        #expect(try reader.integer(of: children[1]) == 5)
    }

    @Test func highTagNumbersRead() throws {
        // [APPLICATION 200] primitive, 1 byte: 5F 81 48 01 FF
        var reader = BERReader([0x5F, 0x81, 0x48, 0x01, 0xFF])
        let element = try reader.root()
        #expect(element.tagClass == 1 && element.tagNumber == 200 && element.contentCount == 1)
    }

    @Test(
        arguments: [
            [0x30, 0x05, 0x02, 0x01],  // content runs past the end
            [0x30, 0x80, 0x02, 0x01, 0x05],  // no end-of-contents marker
            [0x04, 0x80, 0x00, 0x00],  // indefinite primitive
            [0x30, 0x85, 0, 0, 0, 0, 1, 0x00],  // length of 5 bytes
            [0x30, 0xFF],  // reserved length
            [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF],  // 2 GiB announced
            [0x1F, 0x80, 0x01, 0x00],  // tag number with a leading zero group
            [0x1F, 0x81, 0x81, 0x81, 0x81, 0x01, 0x00],  // tag number of 5 bytes
            [0x30, 0x00, 0x00],  // trailing byte
            [0x00, 0x00],  // end-of-contents marker alone
            [],
        ] as [[UInt8]])
    func malformedBERIsRefused(bytes: [UInt8]) {
        var reader = BERReader(bytes)
        #expect(throws: BERError.self) { try reader.root() }
    }

    @Test func nestingIsLimited() throws {
        let depth = 24
        var nested: [UInt8] = []
        for _ in 0...depth { nested += [0x30, 0x80] }
        for _ in 0...depth { nested += [0x00, 0x00] }
        var tooDeep = BERReader(nested, maximumDepth: depth - 1)
        #expect(throws: BERError.self) { try tooDeep.root() }
        var enough = BERReader(nested, maximumDepth: depth)
        #expect(try enough.root().end == nested.count)
    }

    @Test func indefiniteNestingCostsWorkInProportionToDepthAndStopsAtTheLimit() throws {
        // 20 indefinite levels around 1000 empty SEQUENCEs. Walking it all reads each inner
        // element once per indefinite ancestor; the reader stops at its limit instead.
        var bytes: [UInt8] = []
        for _ in 0..<20 { bytes += [0x30, 0x80] }
        for _ in 0..<1000 { bytes += [0x30, 0x00] }
        for _ in 0..<20 { bytes += [0x00, 0x00] }
        func walk(_ reader: inout BERReader) throws {
            var pending = [try reader.root()]
            while let element = pending.popLast() {
                pending += try reader.children(of: element).filter(\.constructed)
            }
        }
        var limited = BERReader(bytes)
        #expect(throws: BERError.self) { try walk(&limited) }
        #expect(limited.work <= limited.workLimit + 1)
        #expect(limited.workLimit == 4 * bytes.count + 64)

        var generous = BERReader(bytes, workLimit: 100_000)
        try walk(&generous)
        // root: 20 + 1000; level k re-reads levels below it and the 1000; the innermost its 1000.
        let expected = 1020 + (1..<20).reduce(0) { $0 + (20 - $1) + 1000 } + 1000
        #expect(generous.work == expected)
    }

    @Test func signedAttributesAreReencodedWithDefiniteLengths() throws {
        // [0] (indefinite) { SEQUENCE { OID 1.2, SET { OCTET STRING "x" } } }
        let ber: [UInt8] = [0xA0, 0x80, 0x30, 0x80, 0x06, 0x01, 0x2A, 0x31, 0x03, 0x04, 0x01, 0x78, 0x00, 0x00, 0x00, 0x00]
        var reader = BERReader(ber)
        let element = try reader.root()
        #expect(reader.definiteEncoding(of: element, tag: 0x31) == [0x31, 0x0A, 0x30, 0x08, 0x06, 0x01, 0x2A, 0x31, 0x03, 0x04, 0x01, 0x78])
    }
}
