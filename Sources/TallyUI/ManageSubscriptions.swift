#if canImport(SwiftUI) || canImport(UIKit)
public import Foundation
public import TallyKit

#if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
import StoreKit
import UIKit
#endif

/// Where customers manage and cancel their subscriptions.
@MainActor
public enum ManageSubscriptions {
    /// Shows Apple's manage-subscriptions sheet inside the app where StoreKit can (iOS 15 and
    /// visionOS, in the scene in front); elsewhere, or when the sheet fails, opens Apple's page
    /// (``TallyKit/SubscriptionProfileModel/manageSubscriptionsURL``) with `openURL`.
    /// - Parameter openURL: opens a web page: SwiftUI's `openURL`, or `UIApplication.shared.open`.
    public static func show(openURL: (URL) -> Void) async {
        #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        if #available(iOS 15, visionOS 1, *),
            let scene = UIApplication.shared.connectedScenes.first(where: { $0.activationState == .foregroundActive }) as? UIWindowScene
        {
            do {
                try await AppStore.showManageSubscriptions(in: scene)
                return
            } catch {
                // The page below does the same.
            }
        }
        #endif
        openURL(SubscriptionProfileModel.manageSubscriptionsURL)
    }
}
#endif
