// StoreKit exists on Apple platforms only (checked on Linux by scripts/check_apple_sources.sh).
#if canImport(StoreKit)
public import Foundation
import StoreKit
public import TallyCore

/// The App Store adapter for the system the app runs on.
///
/// ```swift
/// // At launch, so StoreKit's early transactions are not missed:
/// let store = DeviceStore.automatic(productKinds: ["com.tally.zorya.report.career": .consumable])
/// ```
public enum DeviceStore {
    /// ``StoreKit2Store`` from iOS 15, macOS 12, tvOS 15, watchOS 8 and on visionOS;
    /// ``StoreKit1Store`` below them. An app that prefers StoreKit 1 everywhere makes a
    /// ``StoreKit1Store`` itself.
    /// - Parameter productKinds: the kind of each product sold, which StoreKit 1 does not report.
    /// - Returns: the store; make it once, at launch.
    public static func automatic(productKinds: [String: ProductKind] = [:]) -> any Store {
        if #available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *) { return StoreKit2Store() }
        return StoreKit1Store(productKinds: productKinds)
    }

    /// The device's `AppStore.deviceVerificationID` (iOS 15, macOS 12, tvOS 15, watchOS 8),
    /// which StoreKit 2 binds the transactions and renewal info it hands this app to; give it to
    /// ``OnDeviceLedger`` so that a JWS copied from another device is refused. `nil` below those
    /// systems, where StoreKit 1's app receipt is bound to `identifierForVendor` instead.
    public static var deviceVerificationID: UUID? {
        if #available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *) { return AppStore.deviceVerificationID }
        return nil
    }
}
#endif
