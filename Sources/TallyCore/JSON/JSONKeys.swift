public import Foundation

/// How Swift names map to JSON member names.
///
/// Swift names spell an identifier `ID` (`transactionID`), as Swift's API guidelines do. Apple's
/// JSON spells it `Id` (`transactionId`) and the Tally API `_id` (`transaction_id`). The coders
/// of ``AppStoreJSON`` and ``TallyAPI`` convert with these functions, so no type carries a list
/// of coding keys for the difference.
public enum JSONKeys: Sendable {
    /// Apple's name for a Swift name: `transactionID` → `transactionId`. `ID` becomes `Id` where
    /// it ends a word (followed by anything but a lower-case letter) after a lower-case letter or
    /// a digit, so `notificationUUID` stays as it is.
    public static func appStoreName(_ swiftName: String) -> String {
        replacingIdentifier(in: swiftName, from: UInt8(ascii: "D"), to: UInt8(ascii: "d"))
    }

    /// The Swift name for one of Apple's names: `transactionId` → `transactionID`; the inverse of
    /// ``appStoreName(_:)``.
    public static func swiftName(appStoreName: String) -> String {
        replacingIdentifier(in: appStoreName, from: UInt8(ascii: "d"), to: UInt8(ascii: "D"))
    }

    /// The Swift name for a snake_case name: the words joined as `JSONDecoder`'s
    /// `convertFromSnakeCase` joins them, then `Id` as `ID` (`app_apple_id` → `appAppleID`).
    /// A camelCase name comes out as ``swiftName(appStoreName:)`` makes it, so both spellings of
    /// a member read the same field, as they do with `convertFromSnakeCase`.
    public static func swiftName(snakeCase name: String) -> String {
        swiftName(appStoreName: joiningSnakeCase(name))
    }

    /// `convertFromSnakeCase`'s rule: leading and trailing underscores kept, the words between
    /// joined, the first as it is in lower case, each other capitalized; a name without an inner
    /// underscore is left as it is.
    static func joiningSnakeCase(_ name: String) -> String {
        guard let first = name.firstIndex(where: { $0 != "_" }) else { return name }
        let last = name.lastIndex(where: { $0 != "_" })!
        let core = name[first...last]
        guard core.contains("_") else { return name }
        let words = core.split(separator: "_")
        var joined = words[0].lowercased()
        for word in words.dropFirst() { joined += word.prefix(1).uppercased() + word.dropFirst().lowercased() }
        return String(name[..<first]) + joined + String(name[name.index(after: last)...])
    }

    /// Replaces the second letter of `I<from>` with `to` where it ends a word after a lower-case
    /// letter or a digit, and is followed by anything but a lower-case letter. Works on ASCII bytes: every member name of both formats is ASCII, and
    /// most names hold no `I` at all, so they come back untouched without a copy.
    private static func replacingIdentifier(in name: String, from: UInt8, to: UInt8) -> String {
        let bytes = name.utf8
        guard bytes.count >= 3, bytes.contains(UInt8(ascii: "I")) else { return name }
        var characters = Array(bytes)
        var changed = false
        for index in 1..<(characters.count - 1) where characters[index] == UInt8(ascii: "I") && characters[index + 1] == from {
            let before = characters[index - 1]
            let endsWord = index + 2 == characters.count || !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(characters[index + 2])
            let afterWord = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(before) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(before)
            guard endsWord, afterWord else { continue }
            characters[index + 1] = to
            changed = true
        }
        return changed ? String(decoding: characters, as: UTF8.self) : name
    }

    /// The key strategy of every snake_case decoder: ``swiftName(snakeCase:)``.
    public static var fromSnakeCase: JSONDecoder.KeyDecodingStrategy {
        .custom { path in Key(swiftName(snakeCase: path[path.count - 1].stringValue)) }
    }

    /// The key strategy of the App Store payload decoder: ``swiftName(appStoreName:)``.
    public static var fromAppStoreNames: JSONDecoder.KeyDecodingStrategy {
        .custom { path in Key(swiftName(appStoreName: path[path.count - 1].stringValue)) }
    }

    /// The key strategy of the App Store payload encoder: ``appStoreName(_:)``.
    public static var toAppStoreNames: JSONEncoder.KeyEncodingStrategy {
        .custom { path in Key(appStoreName(path[path.count - 1].stringValue)) }
    }

    /// A member name as a coding key, for the coders' custom key strategies.
    public struct Key: CodingKey {
        /// The name.
        public let stringValue: String
        /// Always nil: these keys name object members.
        public var intValue: Int? { nil }
        /// A key for a member name.
        public init(_ name: String) { stringValue = name }
        /// A key for a member name.
        public init?(stringValue: String) { self.stringValue = stringValue }
        /// Nil: these keys name object members.
        public init?(intValue: Int) { nil }
    }
}
