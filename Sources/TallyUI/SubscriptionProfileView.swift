#if canImport(SwiftUI)
public import SwiftUI
public import TallyKit

/// The subscription section of a profile screen over a ``TallyKit/SubscriptionProfileModel``:
/// the plan, a Pro badge while it gives access, its price per billing period, the renewal or end date in words,
/// and the manage-subscriptions link. It follows the account while it is on screen.
///
/// ```swift
/// @StateObject var profile = SubscriptionProfileModel(manager: manager, entitlement: "pro")
/// SubscriptionProfileView(model: profile)
/// ```
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
@available(iOSApplicationExtension, unavailable)
@available(visionOSApplicationExtension, unavailable)
@MainActor
public struct SubscriptionProfileView: View {
    @ObservedObject private var model: SubscriptionProfileModel
    @Environment(\.openURL) private var openURL

    /// - Parameter model: the profile; the view starts and stops following the account with its appearance.
    public init(model: SubscriptionProfileModel) {
        self.model = model
    }

    public var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            HStack(spacing: 8) {
                Text(model.plan?.title ?? model.freeTitle).font(.headline)
                if model.isPro {
                    Text(model.badgeTitle)
                        .font(.caption)
                        .foregroundColor(.white)
                        .padding(.horizontal, 8)
                        .background(Capsule().fill(Color.accentColor))
                }
            }
            if let plan = model.plan {
                if let price = plan.billingText ?? plan.displayPrice { Text(price).foregroundColor(.secondary) }
                Text(plan.statusText).font(.subheadline)
                Button(model.manageTitle) { Task { await AppStoreSheets.manageSubscriptions(openURL: { openURL($0) }) } }
            }
        }
        .onAppear { Task { await model.update() } }
        .onDisappear { model.stop() }
    }
}
#endif
