// Stand-in declarations of the UIKit API that TallyKit uses, with Apple's names, labels and
// types, so that the Apple-only sources typecheck on Linux (scripts/check_apple_sources.sh).
// Nothing here runs. Each declaration carries Apple's availability on the five platforms the
// package declares (Tests/StandIns/AVAILABILITY.md); UIKit has none of these on macOS (Mac
// Catalyst is not checked) or, as here, on watchOS.
@_exported import Foundation  // as UIKit does

// Apple: uikit/uiscene
@available(iOS 13, tvOS 13, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIScene: NSObject {
    public enum ActivationState: Int, Sendable {
        case unattached = -1
        case foregroundActive = 0
        case foregroundInactive = 1
        case background = 2
    }

    open var activationState: UIScene.ActivationState { fatalError("stand-in") }
    public nonisolated static let didActivateNotification = NSNotification.Name("UISceneDidActivateNotification")
}

// Apple: uikit/uiwindowscene
@available(iOS 13, tvOS 13, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIWindowScene: UIScene {}

// Apple: uikit/uiapplication
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIApplication: NSObject {
    // Not in app extensions (UIApplication.h: NS_EXTENSION_UNAVAILABLE_IOS, which tvOS inherits);
    // the availability check enforces it as an extension links the package.
    // Apple: uikit/uiapplication/shared (page not re-read)
    @available(iOS 2, tvOS 9, visionOS 1, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    @available(iOSApplicationExtension, unavailable)
    @available(tvOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    open class var shared: UIApplication { fatalError("stand-in") }
    // Apple: uikit/uiapplication/connectedscenes
    @available(iOS 13, tvOS 13, visionOS 1, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    open var connectedScenes: Set<UIScene> { fatalError("stand-in") }
}

// Apple: uikit/uiapplication/open(_:options:completionhandler:)
@available(iOS 10, tvOS 10, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
extension UIApplication {
    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
    public func open(
        _ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
        completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) {}
}

// Apple: uikit/uiresponder
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIResponder: NSObject {}

// Apple: uikit/uiviewcontroller
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIViewController: UIResponder {
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { super.init() }
    public required init?(coder: NSCoder) { fatalError("stand-in") }
    open func viewDidLoad() {}
    open var view: UIView! {
        get { fatalError("stand-in") }
        set {}
    }
    open var title: String?
    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil) {}
    open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {}
    open var navigationController: UINavigationController? { fatalError("stand-in") }
}

// Apple: uikit/uinavigationcontroller
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UINavigationController: UIViewController {
    public init(rootViewController: UIViewController) { super.init(nibName: nil, bundle: nil) }
    public required init?(coder: NSCoder) { fatalError("stand-in") }
    open func pushViewController(_ viewController: UIViewController, animated: Bool) {}
}

// Apple: uikit/uialertcontroller
@available(iOS 8, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIAlertController: UIViewController {
    public enum Style: Int, Sendable {
        case actionSheet = 0
        case alert = 1
    }
    public convenience init(title: String?, message: String?, preferredStyle: UIAlertController.Style) {
        self.init(nibName: nil, bundle: nil)
    }
    open func addAction(_ action: UIAlertAction) {}
}

// Apple: uikit/uialertaction
@available(iOS 8, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIAlertAction: NSObject {
    public enum Style: Int, Sendable {
        case `default` = 0
        case cancel = 1
        case destructive = 2
    }
    public convenience init(title: String?, style: UIAlertAction.Style, handler: ((UIAlertAction) -> Void)? = nil) { self.init() }
}

// Apple: uikit/uiview
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIView: UIResponder {
    public struct AutoresizingMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let flexibleWidth = AutoresizingMask(rawValue: 1 << 1)
        public static let flexibleHeight = AutoresizingMask(rawValue: 1 << 4)
    }
    public override init() { super.init() }
    public init(frame: CGRect) { super.init() }
    open var frame: CGRect {
        get { fatalError("stand-in") }
        set {}
    }
    open var bounds: CGRect {
        get { fatalError("stand-in") }
        set {}
    }
    open var autoresizingMask: UIView.AutoresizingMask {
        get { fatalError("stand-in") }
        set {}
    }
    open func addSubview(_ view: UIView) {}
    open func removeFromSuperview() {}
}

// Apple: uikit/uistackview
@available(iOS 9, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIStackView: UIView {
    open var axis: NSLayoutConstraint.Axis {
        get { fatalError("stand-in") }
        set {}
    }
    open var spacing: CGFloat {
        get { fatalError("stand-in") }
        set {}
    }
    open var arrangedSubviews: [UIView] { fatalError("stand-in") }
    open func addArrangedSubview(_ view: UIView) {}
}

// Apple: uikit/nslayoutconstraint
@available(iOS 6, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class NSLayoutConstraint: NSObject {
    public enum Axis: Int, Sendable {
        case horizontal = 0
        case vertical = 1
    }
}

// Apple: uikit/uicontrol
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIControl: UIView {
    public struct State: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let normal = State([])
    }
    public struct Event: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let touchUpInside = Event(rawValue: 1 << 6)
    }
    // Apple: uikit/uicontrol/addaction(_:for:)
    @available(iOS 14, tvOS 14, visionOS 1, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    open func addAction(_ action: UIAction, for controlEvents: UIControl.Event) {}
}

// Apple: uikit/uibutton
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIButton: UIControl {
    public enum ButtonType: Int, Sendable {
        case custom = 0
        case system = 1
    }
    public convenience init(type buttonType: UIButton.ButtonType) { self.init(frame: .zero) }
    open func setTitle(_ title: String?, for state: UIControl.State) {}
}

// Apple: uikit/uiactionhandler (the page gives no version, as the typedef has none; these follow uikit/uiaction, the type it names)
@available(iOS 13, tvOS 13, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
public typealias UIActionHandler = @MainActor (UIAction) -> Void

// Apple: uikit/uimenuelement
@available(iOS 13, tvOS 13, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIMenuElement: NSObject {}

// Apple: uikit/uiaction
@available(iOS 13, tvOS 13, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIAction: UIMenuElement {
    public convenience init(title: String = "", handler: @escaping UIActionHandler) { self.init() }
}

// Apple: uikit/uidevice
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIDevice: NSObject {
    open class var current: UIDevice { fatalError("stand-in") }
    open var identifierForVendor: UUID? { fatalError("stand-in") }
}

// Apple: uikit/uiscreen
@available(iOS 2, tvOS 9, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
@MainActor
open class UIScreen: NSObject {
    open class var main: UIScreen { fatalError("stand-in") }
    open var bounds: CGRect { fatalError("stand-in") }
}

// Apple: uikit/uiwindow
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
open class UIWindow: UIView {
    open var rootViewController: UIViewController? {
        get { fatalError("stand-in") }
        set {}
    }
    open func makeKeyAndVisible() {}
}

// Apple: uikit/uiapplication/launchoptionskey
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
extension UIApplication {
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

// Apple: uikit/uiapplicationdelegate
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
}

// Apple: uikit/uiapplicationdelegate
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
extension UIApplicationDelegate {
    /// What `@main` on an application delegate calls.
    @MainActor public static func main() {}
}

// Apple: uikit/uiapplicationmain(_:_:_:_:)-1yub7
@available(iOS 2, tvOS 9, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor
public func UIApplicationMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ principalClassName: String?, _ delegateClassName: String?
) -> Int32 {
    fatalError("stand-in")
}
