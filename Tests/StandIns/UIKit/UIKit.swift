// Stand-in declarations of the UIKit API that TallyKit uses, with Apple's names, labels and
// types, so that the Apple-only sources typecheck on Linux (scripts/check_apple_sources.sh).
// Nothing here runs.
import Foundation

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
