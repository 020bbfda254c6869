/// A StoreKit configuration file that cannot be read, with the place where it goes wrong.
///
/// ``path`` names the value as a path from the document's root, the way the file nests it:
/// `subscriptionGroups[0].subscriptions[1].recurringSubscriptionPeriod`, `settings._timeRate`.
/// It is empty when the document as a whole is at fault (not JSON, not an object, unreadable).
///
/// Errors are equal when their codes are equal, like swift-certificates' `CertificateError`;
/// compare ``path`` and ``reason`` explicitly where the place matters.
public struct StoreKitConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of fault it is; stable, never reused.
    public var code: Code
    /// Where in the document, e.g. `products[2].displayPrice`; empty for the whole document.
    public var path: String
    /// What is wrong there, in a sentence fragment: `expected a string, found a number`.
    public var reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of fault.
    ///   - path: where in the document.
    ///   - reason: what is wrong there.
    public init(_ code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// `path: reason`, or the reason alone for the whole document.
    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only, as ``==`` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable code for each kind of fault.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as text, e.g. `invalid_value`.
        public let rawValue: String
        /// Wraps a raw code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code as text.
        public var description: String { rawValue }

        /// The file could not be read.
        public static let unreadable = Self(rawValue: "unreadable")
        /// The bytes are not JSON, or the document is not a JSON object.
        public static let invalidJSON = Self(rawValue: "invalid_json")
        /// A required value is absent (a product without `productID`, say).
        public static let missingValue = Self(rawValue: "missing_value")
        /// A value has the wrong JSON type (a number where a string belongs).
        public static let wrongType = Self(rawValue: "wrong_type")
        /// A value has the right type but a meaning this reader rejects: an unknown product
        /// type, a price with four decimals, a period that is not ISO 8601.
        public static let invalidValue = Self(rawValue: "invalid_value")
        /// A subscription's `subscriptionGroupID` names no group, or another group than the one holding it.
        public static let unknownGroup = Self(rawValue: "unknown_group")
        /// Two products share a `productID`.
        public static let duplicateProduct = Self(rawValue: "duplicate_product")
    }
}
