/// A value the App Store sends as a string or number from a set that grows over time.
///
/// Types that adopt it are structs over their raw value, never closed enums: a value Apple
/// adds tomorrow decodes today and survives a round trip unchanged, and the known values
/// are available as static constants for comparison.
///
/// ```swift
/// let environment = AppStoreEnvironment(rawValue: "Sandbox")
/// environment == .sandbox // true
/// AppStoreEnvironment(rawValue: "Staging").rawValue // "Staging", kept as sent
/// ```
public protocol AppStoreRawValue: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible
where RawValue: Codable & Hashable & Sendable {
    /// Wraps a raw value exactly as the App Store sent it.
    init(rawValue: RawValue)
}

extension AppStoreRawValue {
    /// The raw value, as the App Store sent it.
    public var description: String { "\(rawValue)" }
}
