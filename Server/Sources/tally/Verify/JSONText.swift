import Foundation
import TallyCore

/// The few pieces of JSON text `tally verify` writes, appended to a byte buffer without
/// `JSONEncoder` or a formatter, byte for byte as those write them.
enum JSONText {
    /// Appends `string` as a JSON string, as `JSONEncoder()` with its default options writes it:
    /// `"`, `\` and `/` escaped with a backslash; `\b \f \n \r \t` by name; the other control
    /// characters as `\u00XX` (lowercase hex); everything else (DEL, non-ASCII) as it is.
    static func appendQuoted(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                appendEscape(byte, to: &output)
                start = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            output.append(contentsOf: "u00".utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `date` as `date.formatted(.iso8601)` writes it: `2024-06-02T03:46:40Z`, UTC,
    /// whole seconds rounded down.
    ///
    /// Computed for dates from 1970 to 9999 (the proleptic Gregorian calendar, which
    /// Foundation's agrees with there); others, and times a hair below a whole second where
    /// rounding could differ, go through Foundation.
    static func appendISO8601(_ date: Date, to output: inout [UInt8]) {
        let sinceReference = date.timeIntervalSinceReferenceDate
        let whole = sinceReference.rounded(.down)
        let seconds = whole + Date.timeIntervalBetween1970AndReferenceDate
        guard seconds >= 0, seconds < 253_402_300_800, sinceReference - whole < 0.999_999 else {
            output.append(contentsOf: date.formatted(.iso8601).utf8)
            return
        }
        let total = Int(seconds)
        let days = total / 86_400
        let time = total % 86_400
        let civil = CivilDate(daysSince1970: days)

        appendDigits(civil.year, count: 4, to: &output)
        output.append(UInt8(ascii: "-"))
        appendDigits(civil.month, count: 2, to: &output)
        output.append(UInt8(ascii: "-"))
        appendDigits(civil.day, count: 2, to: &output)
        output.append(UInt8(ascii: "T"))
        appendDigits(time / 3_600, count: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        appendDigits(time / 60 % 60, count: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        appendDigits(time % 60, count: 2, to: &output)
        output.append(UInt8(ascii: "Z"))
    }

    private static func appendDigits(_ value: Int, count: Int, to output: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
