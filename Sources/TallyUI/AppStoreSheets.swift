#if canImport(SwiftUI) || canImport(UIKit)
public import Foundation
import TallyKit

#if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
import StoreKit
import UIKit
#endif

/// The App Store's own sheets, shown in the scene in front: manage subscriptions, request a
/// refund, redeem an offer code. What they change reaches the app as usual: a refund or a
/// redeemed code arrives as a transaction update, which ``TallyKit/PurchaseManager`` delivers.
@MainActor
public enum AppStoreSheets {
    /// What came of a refund request.
    public enum RefundRequest: String, Sendable {
        /// Apple received it; the decision comes later, as a transaction update.
        case submitted
        /// The customer closed the sheet.
        case cancelled
        /// It could not be asked here (no scene in front, an older system, a platform without
        /// the sheet) or StoreKit refused it (a request made already): send people to
        /// reportaproblem.apple.com.
        case unavailable
    }

    /// Shows Apple's manage-subscriptions sheet inside the app where StoreKit can (iOS 15 and
    /// visionOS, in the scene in front); elsewhere, or when the sheet fails, opens Apple's page
    /// (``TallyKit/SubscriptionProfileModel/manageSubscriptionsURL``) with `openURL`.
    /// - Parameter openURL: opens a web page: SwiftUI's `openURL`, or `UIApplication.shared.open`.
    public static func manageSubscriptions(openURL: (URL) -> Void) async {
        #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        if #available(iOS 15, visionOS 1, *), let scene = sceneInFront() {
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

    /// Shows Apple's refund request sheet for a transaction (iOS 15 and visionOS).
    /// - Parameter transactionID: the transaction, as ``TallyKit/DeliveryReceipt/transactionID`` has it.
    public static func requestRefund(transactionID: String) async -> RefundRequest {
        #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        if #available(iOS 15, visionOS 1, *), let id = UInt64(transactionID), let scene = sceneInFront() {
            do {
                switch try await StoreKit.Transaction.beginRefundRequest(for: id, in: scene) {
                case .success: return .submitted
                case .userCancelled: return .cancelled
                @unknown default: return .unavailable
                }
            } catch {
                return .unavailable
            }
        }
        #endif
        return .unavailable
    }

    /// Shows Apple's offer code sheet (iOS 16 and visionOS); `false` when it could not be shown.
    /// A redeemed code arrives as a transaction update.
    @discardableResult
    public static func redeemOfferCode() async -> Bool {
        #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        if #available(iOS 16, visionOS 1, *), let scene = sceneInFront() {
            do {
                try await AppStore.presentOfferCodeRedeemSheet(in: scene)
                return true
            } catch {
                return false
            }
        }
        #endif
        return false
    }

    #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
    /// The window scene the customer looks at.
    static func sceneInFront() -> UIWindowScene? {
        UIApplication.shared.connectedScenes.first(where: { $0.activationState == .foregroundActive }) as? UIWindowScene
    }
    #endif
}
#endif
