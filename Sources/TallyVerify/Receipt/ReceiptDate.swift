import Foundation
import TallyCore

/// Dates as receipts write them: RFC 3339 `2024-02-23T10:15:07Z`, with the offsets Xcode
/// writes (`+0100`) or `+01:00`, and optional fractions of a second.
///
/// Parsed by hand: no formatter, locale or calendar is involved, and it runs on every
/// platform the same way.
enum ReceiptDate {
    /// The date `text` names, or `nil` when it is not such a date.
    static func parse(_ text: some Collection<UInt8>) -> Date? {
        let bytes = Array(text)
        var index = 0

        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }

        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
            expect("Tt"), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }

        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 9 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }

        var offset = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2) else { return nil }
            _ = expect(":")
            guard let minutes = digits(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }

        let days = CivilDate(year: year, month: month, day: day).daysSince1970
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
