public import Foundation
public import TallyCore

/// The customer's purchase of the app itself, as the App Store signed it (StoreKit 2's
/// `AppTransaction`, or the app receipt under StoreKit 1) and the device verified it: which
/// version they first got and when. An app that moved from paid to free keeps what earlier
/// buyers paid for by asking ``firstVersion(isBefore:)``.
///
/// ```swift
/// let app = try await manager.appPurchase()
/// if app.firstVersion(isBefore: "42") { unlockEverything() }   // bought while the app was paid
/// ```
public struct AppPurchase: Sendable, Hashable {
    /// The app version (`CFBundleVersion`, the build number) the customer first got. The
    /// sandbox always says `1.0`.
    public let originalApplicationVersion: String?
    /// When the customer first got the app.
    public let originalPurchaseDate: Date?
    /// The app version the evidence was issued for.
    public let applicationVersion: String?
    /// When the customer pre-ordered the app, if they did.
    public let preorderDate: Date?
    /// Production, Sandbox or Xcode.
    public let environment: AppStoreEnvironment?
    /// The App Store's identifier of this customer's download of the app (StoreKit 2 only).
    public let appTransactionID: String?

    /// From a verified `AppTransaction`.
    public init(_ payload: AppTransactionPayload) {
        originalApplicationVersion = payload.originalApplicationVersion
        originalPurchaseDate = payload.originalPurchaseDate
        applicationVersion = payload.applicationVersion
        preorderDate = payload.preorderDate
        environment = payload.receiptType
        appTransactionID = payload.appTransactionID
    }

    /// From a verified app receipt.
    public init(_ receipt: AppReceipt) {
        originalApplicationVersion = receipt.originalApplicationVersion
        originalPurchaseDate = receipt.originalPurchaseDate
        applicationVersion = receipt.applicationVersion
        preorderDate = nil
        environment = receipt.environment
        appTransactionID = nil
    }

    /// Whether the customer's first version came before `version`: both compared as build
    /// numbers, dot-separated integers (`"41" < "42"`, `"1.9" < "1.10"`). `false` when the first
    /// version is unknown or either is not such a number.
    public func firstVersion(isBefore version: String) -> Bool {
        guard let first = originalApplicationVersion.flatMap(Self.components), let other = Self.components(version) else { return false }
        for index in 0..<max(first.count, other.count) {
            let lhs = index < first.count ? first[index] : 0
            let rhs = index < other.count ? other[index] : 0
            if lhs != rhs { return lhs < rhs }
        }
        return false
    }

    private static func components(_ version: String) -> [Int]? {
        let parts = version.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.compactMap { $0 }
    }
}
