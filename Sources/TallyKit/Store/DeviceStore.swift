// StoreKit exists on Apple platforms only (checked on Linux by scripts/check_apple_sources.sh).
#if canImport(StoreKit)
import TallyCore

/// The App Store adapter for the system the app runs on.
///
/// ```swift
/// // At launch, so StoreKit's early transactions are not missed:
/// let store = DeviceStore.automatic(productKinds: ["com.zorya.report.career": .consumable])
/// ```
public enum DeviceStore {
    /// ``StoreKit2Store`` from iOS 15, macOS 12, tvOS 15 and watchOS 8; ``StoreKit1Store`` below
    /// them, and on visionOS, where StoreKit 2's purchase needs a scene this adapter does not
    /// take yet. An app that prefers StoreKit 1 everywhere makes a ``StoreKit1Store`` itself.
    /// - Parameter productKinds: the kind of each product sold, which StoreKit 1 does not report.
    /// - Returns: the store; make it once, at launch.
    public static func automatic(productKinds: [String: ProductKind] = [:]) -> any Store {
        #if !os(visionOS)
        if #available(iOS 15, macOS 12, tvOS 15, watchOS 8, *) { return StoreKit2Store() }
        #endif
        return StoreKit1Store(productKinds: productKinds)
    }
}
#endif
