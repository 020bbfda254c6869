/// A value of one of Tally's closed sets (a product kind, an order status, a ledger entry kind),
/// carried as a stable string: in JSON, in SQL, in logs.
///
/// Like ``TallyErrorCode``, a code is a struct over its raw string rather than an enum, so that a
/// value a newer server or app writes survives decoding here (``isKnown`` says whether this
/// version knows it), and every place that writes or checks a value names one constant that the
/// compiler can find. ``all`` lists the known values; the database's `CHECK` constraints are
/// written from it, so SQL and Swift cannot disagree.
public protocol StableCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible where RawValue == String {
    /// Creates a code from its raw string, known or not.
    init(rawValue: String)
    /// Every value this version knows, in the order of their declaration.
    static var all: [Self] { get }
}

extension StableCode {
    public var description: String { rawValue }

    /// Whether this version of Tally knows the value.
    public var isKnown: Bool { Self.all.contains(self) }

    /// The known value with this raw string, or nil.
    public init?(known rawValue: String) {
        self.init(rawValue: rawValue)
        guard isKnown else { return nil }
    }

    /// The known values as a SQL list, `'a', 'b'`, for `CHECK (column IN (…))`.
    public static var sqlList: String { sqlList(all) }

    /// Some of the values as a SQL list, for a column that holds only those.
    public static func sqlList(_ values: [Self]) -> String { values.map { "'\($0.rawValue)'" }.joined(separator: ", ") }
}
