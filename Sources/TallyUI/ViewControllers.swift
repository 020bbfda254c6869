#if canImport(UIKit) && canImport(SwiftUI) && !os(watchOS)
public import SwiftUI
public import TallyKit
import UIKit

/// The paywall for UIKit apps: ``PaywallView`` in a view controller. Push or present it; follow
/// the purchase through the model's `onChange` (use `[weak self]`) or its `lastPurchase`.
///
/// ```swift
/// let paywall = PaywallModel(manager: manager, productIDs: ["com.tally.zorya.report.career"])
/// paywall.onChange = { [weak self] model in if model.lastPurchase != nil { self?.dismiss(animated: true) } }
/// present(PaywallViewController(model: paywall, links: links), animated: true)
/// ```
@available(iOS 14, tvOS 14, *)
@available(iOSApplicationExtension, unavailable)
@available(visionOSApplicationExtension, unavailable)
@MainActor
public final class PaywallViewController: UIHostingController<PaywallView> {
    /// The paywall shown.
    public let model: PaywallModel

    /// - Parameters:
    ///   - model: the paywall; loaded when the view appears.
    ///   - links: the terms of use and privacy policy.
    public init(model: PaywallModel, links: PaywallLinks) {
        self.model = model
        super.init(rootView: PaywallView(model: model, links: links))
    }

    @available(*, unavailable, message: "Made in code: init(model:links:)")
    required init?(coder: NSCoder) { fatalError("PaywallViewController is made in code") }
}

/// The subscription section of a profile for UIKit apps: ``SubscriptionProfileView`` in a view
/// controller, to embed as a child or push.
@available(iOS 14, tvOS 14, *)
@available(iOSApplicationExtension, unavailable)
@available(visionOSApplicationExtension, unavailable)
@MainActor
public final class SubscriptionProfileViewController: UIHostingController<SubscriptionProfileView> {
    /// The profile shown.
    public let model: SubscriptionProfileModel

    /// - Parameter model: the profile; it follows the account while the view is on screen.
    public init(model: SubscriptionProfileModel) {
        self.model = model
        super.init(rootView: SubscriptionProfileView(model: model))
    }

    @available(*, unavailable, message: "Made in code: init(model:)")
    required init?(coder: NSCoder) { fatalError("SubscriptionProfileViewController is made in code") }
}
#endif
