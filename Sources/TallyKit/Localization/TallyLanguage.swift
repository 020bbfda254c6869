import Foundation

/// A language TallyKit speaks to people in: English or Ukrainian.
///
/// Chosen explicitly (per user or per screen), because the process locale does not switch
/// Foundation's strings on every platform; ``preferred`` reads the device's preferences.
public struct TallyLanguage: Hashable, Sendable, CustomStringConvertible {
    /// The language code, `en` or `uk`.
    public let code: String

    private init(_ code: String) { self.code = code }

    /// English.
    public static let english = TallyLanguage("en")
    /// Ukrainian.
    public static let ukrainian = TallyLanguage("uk")
    /// Every language with strings.
    public static let all: [TallyLanguage] = [.english, .ukrainian]

    /// The language for a locale or language identifier (`uk`, `uk_UA`, `uk-UA`, `en-GB`);
    /// English for any language without strings.
    public init(identifier: String) {
        let language = identifier.lowercased().split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map(String.init) ?? ""
        self = Self.all.first { $0.code == language } ?? .english
    }

    /// The first of the device's preferred languages that has strings, else English.
    public static var preferred: TallyLanguage {
        for identifier in Locale.preferredLanguages {
            let language = TallyLanguage(identifier: identifier)
            if language != .english || identifier.lowercased().hasPrefix("en") { return language }
        }
        return .english
    }

    public var description: String { code }
}
