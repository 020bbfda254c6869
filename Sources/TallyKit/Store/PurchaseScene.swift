#if canImport(UIKit) && !os(watchOS)
public import UIKit
#endif

/// The scene whose window shows the payment sheet (StoreKit 2's
/// `Product.purchase(confirmIn:options:)`: iOS, iPadOS and tvOS 17, visionOS). Give it when the
/// app has several windows (an iPad, visionOS), so the sheet opens in the one the customer
/// uses. Without it StoreKit chooses the window itself (iOS, tvOS, macOS, and every system
/// before 17), and on visionOS, which has no sheet without a scene, the scene in front is taken.
///
/// Giving the scene also keeps the purchase path clear of `UIApplication.shared`, which app
/// extensions may not use.
///
/// ```swift
/// try await manager.purchase("com.tally.zorya.report.career", confirmIn: PurchaseScene(view.window!.windowScene!))
/// ```
public struct PurchaseScene: Sendable, Hashable {
    #if canImport(UIKit) && !os(watchOS)
    private let reference: Reference

    /// - Parameter scene: the scene to show the payment sheet in; held weakly, so a scene
    ///   closed meanwhile is not kept alive (the sheet then shows as if none was given).
    @MainActor
    public init(_ scene: UIScene) { reference = Reference(scene) }

    /// The scene, while it exists.
    @MainActor public var scene: UIScene? { reference.scene }

    public static func == (lhs: PurchaseScene, rhs: PurchaseScene) -> Bool { lhs.reference === rhs.reference }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(reference)) }

    /// The scene, held weakly; read and set on the main actor only (the initializer and
    /// ``scene`` are main-actor isolated), which is what makes it Sendable.
    private final class Reference: @unchecked Sendable {
        weak var scene: UIScene?

        @MainActor
        init(_ scene: UIScene) { self.scene = scene }
    }
    #endif
}
