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
open class UIView: UIResponder {}
