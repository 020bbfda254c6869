import Foundation

/// The string table of one language, read from `Resources/<code>.lproj/Localizable.strings`.
///
/// Loaded through the language's own `.lproj` bundle, which works the same on Apple platforms
/// and on Linux; plural forms are chosen in code (``PluralCategory``) rather than by
/// `.stringsdict`, which Foundation on Linux does not read.
struct LocalizedStrings: Sendable {
    let language: TallyLanguage
    private let bundle: Bundle?
    private let fallback: Bundle?

    private static let tables: [TallyLanguage: LocalizedStrings] = {
        var tables: [TallyLanguage: LocalizedStrings] = [:]
        let english = Bundle.module.path(forResource: "en", ofType: "lproj").flatMap(Bundle.init(path:))
        for language in TallyLanguage.all {
            let bundle = Bundle.module.path(forResource: language.code, ofType: "lproj").flatMap(Bundle.init(path:))
            tables[language] = LocalizedStrings(language: language, bundle: bundle, fallback: english)
        }
        return tables
    }()

    static func table(for language: TallyLanguage) -> LocalizedStrings {
        tables[language] ?? tables[.english]!
    }

    /// The string for `key`; the English one when this language lacks it; the key itself when both do.
    subscript(_ key: String) -> String {
        let missing = "\u{1}"
        if let value = bundle?.localizedString(forKey: key, value: missing, table: nil), value != missing { return value }
        if let value = fallback?.localizedString(forKey: key, value: missing, table: nil), value != missing { return value }
        return key
    }

    /// `key.one`, `key.few`, `key.many` or `key.other` for `count`, with `%lld` replaced by it.
    func counted(_ key: String, count: Int64) -> String {
        let category = PluralCategory(count, language: language)
        var format = self["\(key).\(category.rawValue)"]
        if format == "\(key).\(category.rawValue)" { format = self["\(key).other"] }
        return format.replacingOccurrences(of: "%lld", with: String(count))
    }

    /// A period as the unit of a price: "month" for one, "3 months" for more.
    func unit(_ period: SubscriptionTerms.Period) -> String {
        let key = "period.\(period.unit.rawValue)"
        return period.value == 1 ? self[key] : counted(key, count: Int64(period.value))
    }

    /// A subscription's price for one period: "$4.99 / month", "$9.99 / 3 months".
    func pricePerPeriod(_ price: String, _ period: SubscriptionTerms.Period) -> String {
        self["price.per_period"].replacingOccurrences(of: "{price}", with: price).replacingOccurrences(of: "{unit}", with: unit(period))
    }
}

/// CLDR plural categories for whole numbers.
enum PluralCategory: String, Sendable {
    case one, few, many, other

    init(_ count: Int64, language: TallyLanguage) {
        let n = count.magnitude
        switch language {
        case .ukrainian:
            // CLDR for Ukrainian: 1, 21, 31… one; 2–4, 22–24… few; 0, 5–20, 25–30… many.
            let mod10 = n % 10, mod100 = n % 100
            if mod10 == 1 && mod100 != 11 {
                self = .one
            } else if (2...4).contains(mod10) && !(12...14).contains(mod100) {
                self = .few
            } else {
                self = .many
            }
        default:
            self = n == 1 ? .one : .other
        }
    }
}
