import Foundation
import TallyTestSupport
import Testing

@testable import tally

#if canImport(Glibc)
import Glibc
#endif

/// `tally verify` writes its verdicts without `JSONEncoder` or a date formatter: the same bytes
/// as those, checked against them on the inputs most likely to differ.
@Suite struct JSONTextTests {
    static func encoded(_ string: String) throws -> [UInt8] {
        Array(try JSONEncoder().encode(string))
    }

    static func quoted(_ string: String) -> [UInt8] {
        var output: [UInt8] = []
        JSONText.appendQuoted(string, to: &output)
        return output
    }

    @Test(arguments: [
        "", "plain", "a\"b", "back\\slash", "a/b", "</script>", "tab\there", "line\nfeed", "cr\rlf\r\n", "\u{0}", "\u{1}\u{7}\u{8}\u{B}\u{C}\u{1F}",
        "\u{7F}", "é", "naïve façade", "\u{301}combining", "emoji 😀 and 👩‍👩‍👧", "\u{2028}\u{2029}", "\u{FEFF}bom", "\u{FFFD}", "日本語",
        "alg is 'HS256\"/\\'", "x5c[0] is not a certificate: \u{0}\u{1}", String(repeating: "\"/\\\n", count: 500),
    ])
    func quotedStringsAreWhatJSONEncoderWrites(string: String) throws {
        #expect(Self.quoted(string) == (try Self.encoded(string)), "\(string.debugDescription)")
    }

    @Test func unicodeScalarsAreQuotedAsJSONEncoderQuotesThem() throws {
        // Every scalar of the Basic Multilingual Plane and every 7th of the others, in strings of
        // 4,096, each string also ending in the escaped ASCII characters.
        let values = Array(UInt32(0)...0xFFFF) + Array(stride(from: UInt32(0x10000), through: 0x10FFFF, by: 7))
        let scalars = values.lazy.compactMap { Unicode.Scalar($0) }.map { Character($0) }
        var chunk = ""
        var checked = 0
        for character in scalars {
            chunk.append(character)
            if chunk.unicodeScalars.count >= 4_096 {
                chunk += "\"\\/\n"
                #expect(Self.quoted(chunk) == (try Self.encoded(chunk)), "in the chunk ending at U+\(String(character.unicodeScalars.first!.value, radix: 16))")
                checked += chunk.unicodeScalars.count
                chunk = ""
            }
        }
        #expect(Self.quoted(chunk) == (try Self.encoded(chunk)))
        #expect(checked > 200_000)
    }

    static func iso8601(_ date: Date) -> String {
        var output: [UInt8] = []
        JSONText.appendISO8601(date, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    @Test(
        arguments: [
            0, 0.5, 0.999, 59.999_999_9, 86_399, 86_400, 951_782_400, 951_868_799.75, 1_717_300_000, 1_717_300_000.999,
            4_107_542_399, 4_107_542_400, 253_402_300_799.5, 253_402_300_800, -0.5, -1, -86_400.25, -62_135_596_801,
            1e13, -1e13,
        ] as [Double])
    func datesAreWhatTheISO8601FormatStyleWrites(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(Self.iso8601(date) == date.formatted(.iso8601), "\(seconds)")
    }

    @Test func randomDatesFrom1970To9999AreWhatTheISO8601FormatStyleWrites() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // Milliseconds, as App Store dates are, and any time at all.
            let millis = Double(Int64.random(in: 0..<253_402_300_800_000, using: &generator)) / 1_000
            let any = Double.random(in: -1e10..<3e11, using: &generator)
            for seconds in [millis, any] {
                let date = Date(timeIntervalSince1970: seconds)
                #expect(Self.iso8601(date) == date.formatted(.iso8601), "\(seconds)")
            }
        }
    }

    @Test func theJWSOnALineIsTheLineTrimmedAsFoundationTrimsIt() {
        let edges = [
            "", " ", "\t", "\n", "\r", "\r\n", "\u{B}", "\u{C}", "\u{1C}", "\u{1F}", "\u{85}", "\u{A0}", "\u{2028}", "\u{3000}",
            "\u{FEFF}", "\u{301}", " \u{A0} ", "x",
        ]
        let cores = ["", "a.b.c", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln", "é.b", "a.b\u{301}", " inner space "]
        for core in cores {
            for prefix in edges {
                for suffix in edges {
                    let line = prefix + core + suffix
                    #expect(
                        VerifyCommand.jws(in: Array(line.utf8)[...]) == line.trimmingCharacters(in: .whitespacesAndNewlines),
                        "\(line.debugDescription)")
                }
            }
        }
        // Bytes that are not UTF-8 at either end are decoded (and replaced) before trimming, as before.
        for bytes: [UInt8] in [[0xFF, 0x61, 0x20], [0x20, 0x61, 0xC3], [0x20, 0xFE, 0x20], [0xE2, 0x80]] {
            #expect(VerifyCommand.jws(in: bytes[...]) == String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test(arguments: ["", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "a\r\n\r\nb\r\n", "long line\nx", String(repeating: "0123456789\n", count: 40)])
    func linesAreSplitOnLineFeedsAsBefore(text: String) throws {
        // As `tally verify --jsonl` always split its input: on LF, empty lines kept, nothing after a final LF.
        var expected = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if expected.last?.isEmpty == true { expected.removeLast() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.fileURL("lines")
        try Data(text.utf8).write(to: file)
        for chunkSize in [1, 2, 3, 7, 1 << 20] {
            let descriptor = open(file.path, O_RDONLY)
            defer { close(descriptor) }
            var reader = LineReader(descriptor: descriptor, chunkSize: chunkSize)
            var lines: [[UInt8]] = []
            while let batch = try reader.next() { lines += batch.map(Array.init) }
            #expect(lines == expected, "chunks of \(chunkSize)")
        }
    }
}
