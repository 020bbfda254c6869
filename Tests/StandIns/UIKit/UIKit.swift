// Stand-in declarations of the UIKit API that TallyKit uses, with Apple's names, labels and
// types, so that the Apple-only sources typecheck on Linux (scripts/check_apple_sources.sh).
// Nothing here runs.
@_exported import Foundation  // as UIKit does

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

@MainActor
open class UIWindowScene: UIScene {}

@MainActor
open class UIApplication: NSObject {
    open class var shared: UIApplication { fatalError("stand-in") }
    open var connectedScenes: Set<UIScene> { fatalError("stand-in") }
}

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

@MainActor
open class UIResponder: NSObject {}

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

@MainActor
open class UINavigationController: UIViewController {
    public init(rootViewController: UIViewController) { super.init(nibName: nil, bundle: nil) }
    public required init?(coder: NSCoder) { fatalError("stand-in") }
    open func pushViewController(_ viewController: UIViewController, animated: Bool) {}
}

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

@MainActor
open class UIAlertAction: NSObject {
    public enum Style: Int, Sendable {
        case `default` = 0
        case cancel = 1
        case destructive = 2
    }
    public convenience init(title: String?, style: UIAlertAction.Style, handler: ((UIAlertAction) -> Void)? = nil) { self.init() }
}

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

@MainActor
open class NSLayoutConstraint: NSObject {
    public enum Axis: Int, Sendable {
        case horizontal = 0
        case vertical = 1
    }
}

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
    open func addAction(_ action: UIAction, for controlEvents: UIControl.Event) {}
}

@MainActor
open class UIButton: UIControl {
    public enum ButtonType: Int, Sendable {
        case custom = 0
        case system = 1
    }
    public convenience init(type buttonType: UIButton.ButtonType) { self.init(frame: .zero) }
    open func setTitle(_ title: String?, for state: UIControl.State) {}
}

public typealias UIActionHandler = @MainActor (UIAction) -> Void

@MainActor
open class UIMenuElement: NSObject {}

@MainActor
open class UIAction: UIMenuElement {
    public convenience init(title: String = "", handler: @escaping UIActionHandler) { self.init() }
}

@MainActor
open class UIDevice: NSObject {
    open class var current: UIDevice { fatalError("stand-in") }
    open var identifierForVendor: UUID? { fatalError("stand-in") }
}

@MainActor
open class UIScreen: NSObject {
    open class var main: UIScreen { fatalError("stand-in") }
    open var bounds: CGRect { fatalError("stand-in") }
}

@MainActor
open class UIWindow: UIView {
    open var rootViewController: UIViewController? {
        get { fatalError("stand-in") }
        set {}
    }
    open func makeKeyAndVisible() {}
}

extension UIApplication {
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
}

extension UIApplicationDelegate {
    /// What `@main` on an application delegate calls.
    @MainActor public static func main() {}
}

@MainActor
public func UIApplicationMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ principalClassName: String?, _ delegateClassName: String?
) -> Int32 {
    fatalError("stand-in")
}
