// StoreKit Test, as the example apps' Xcode-only tests (Examples/*/AppTests) use it: Xcode's
// StoreKit testing session, so those tests typecheck here with the rest of the examples.
import Foundation

// Apple: storekittest/sktestsession
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
open class SKTestSession: NSObject {
    // Apple: storekittest/sktestsession/init(configurationfilenamed:)
    @available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
    public convenience init(configurationFileNamed filename: String) throws { fatalError("stand-in") }
    // Apple: storekittest/sktestsession/init(contentsof:)
    @available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
    public init(contentsOf fileURL: URL) throws { fatalError("stand-in") }
    // Apple: storekittest/sktestsession/disabledialogs
    @available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
    open var disableDialogs: Bool {
        get { fatalError("stand-in") }
        set { fatalError("stand-in") }
    }
    // Apple: storekittest/sktestsession/cleartransactions()
    @available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
    open func clearTransactions() { fatalError("stand-in") }
    // Apple: storekittest/sktestsession/resettodefaultstate()
    @available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
    open func resetToDefaultState() { fatalError("stand-in") }
}
