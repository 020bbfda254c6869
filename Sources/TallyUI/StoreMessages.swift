#if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
import StoreKit
import UIKit

/// App Store messages (a price increase to consent to, a billing problem, a win-back offer)
/// shown when the app is ready for them rather than over a paywall or an onboarding screen.
///
/// Once an app listens to StoreKit's `Message.messages` the system no longer shows them itself:
/// make one at launch and keep it; it shows each message in the scene in front as it comes,
/// except while ``isDeferred``, when it keeps them and shows them once deferring ends. One that
/// comes while no scene is in front (at launch) waits for the next scene to become active.
///
/// ```swift
/// let messages = StoreMessages()       // at launch
/// messages.isDeferred = true           // the onboarding paywall is on screen
/// messages.isDeferred = false          // it is gone: what came meanwhile is shown now
/// ```
///
/// It finds the scene in front through `UIApplication.shared`, so it is unavailable in app extensions.
@available(iOS 16, visionOS 1, *)
@available(iOSApplicationExtension, unavailable)
@available(visionOSApplicationExtension, unavailable)
@MainActor
public final class StoreMessages {
    /// Whether messages wait; setting it to `false` shows the ones that waited.
    public var isDeferred: Bool {
        didSet { if !isDeferred { showWaiting() } }
    }
    /// How many messages wait.
    public var waitingCount: Int { waiting.count }
    private var waiting: [Message] = []
    private var listener: Task<Void, Never>?

    /// Starts listening to the App Store's messages.
    /// - Parameter deferred: whether they wait from the start (an app that opens on onboarding).
    public init(deferred: Bool = false) {
        isDeferred = deferred
        listener = Task { [weak self] in
            for await message in Message.messages {
                guard let self else { return }
                self.waiting.append(message)
                if !self.isDeferred { self.showWaiting() }
            }
        }
        // Made once at launch and kept: the observer is not removed, and holds the messages weakly.
        NotificationCenter.default.addObserver(forName: UIScene.didActivateNotification, object: nil, queue: nil) { [weak self] _ in
            Task { @MainActor in
                guard let self, !self.isDeferred else { return }
                self.showWaiting()
            }
        }
    }

    deinit {
        listener?.cancel()
    }

    /// Shows the waiting messages in the scene in front; with no scene in front they keep waiting.
    public func showWaiting() {
        guard let scene = AppStoreSheets.sceneInFront() else { return }
        while !waiting.isEmpty {
            let message = waiting.removeFirst()
            do {
                try message.display(in: scene)
            } catch {
                // StoreKit could not show it now: it is dropped, and the App Store sends it again.
            }
        }
    }
}
#endif
