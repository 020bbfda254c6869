#if canImport(UIKit) && !os(watchOS)
public import UIKit
#endif

/// The scene whose window shows the payment sheet (StoreKit 2's
/// `Product.purchase(confirmIn:options:)`: iOS, iPadOS and tvOS 17, visionOS). Give it when the
/// app has several windows (an iPad, visionOS), so the sheet opens in the one the customer
/// uses. Without it StoreKit chooses the window itself (iOS, tvOS, macOS, and every system
/// before 17). visionOS has no payment sheet without a scene: there a purchase given none fails
/// with `configuration_invalid`; an app passes ``inFront``.
///
/// TallyKit never touches `UIApplication.shared`, which app extensions may not use, so an
/// extension (a widget reading balances) can link it; ``inFront`` is the one exception and is
/// unavailable in extensions.
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

    /// The app's scene in front (foreground and active), or `nil` when none is: what a
    /// single-window app, or a visionOS app that does not track its scenes, gives a purchase.
    @available(iOSApplicationExtension, unavailable)
    @available(tvOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    @MainActor
    public static var inFront: PurchaseScene? {
        let scenes = UIApplication.shared.connectedScenes
        return (scenes.first { $0.activationState == .foregroundActive } as? UIWindowScene).map(PurchaseScene.init)
    }

    /// The scene, held weakly; read and set on the main actor only (the initializer and
    /// ``scene`` are main-actor isolated), which is what makes it Sendable.
    private final class Reference: @unchecked Sendable {
        weak var scene: UIScene?

        @MainActor
        init(_ scene: UIScene) { self.scene = scene }
    }
    #endif
}
