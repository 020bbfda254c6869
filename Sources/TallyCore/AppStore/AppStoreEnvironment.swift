/// The server environment that produced a piece of signed data (`environment`, or
/// `receiptType` in an app transaction).
public struct AppStoreEnvironment: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Purchases made with real money in the App Store.
    public static let production = Self(rawValue: "Production")
    /// TestFlight and sandbox-account purchases.
    public static let sandbox = Self(rawValue: "Sandbox")
    /// StoreKit Testing in Xcode: signed by a self-signed certificate on the developer's Mac.
    public static let xcode = Self(rawValue: "Xcode")
    /// The value Apple's own libraries use in their unit tests.
    public static let localTesting = Self(rawValue: "LocalTesting")
}
