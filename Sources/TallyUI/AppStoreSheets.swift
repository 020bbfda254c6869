#if canImport(SwiftUI) || canImport(UIKit)
public import Foundation
import TallyKit

#if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
import StoreKit
public import UIKit
#endif

/// The App Store's own sheets: manage subscriptions, request a refund, redeem an offer code.
/// What they change reaches the app as usual: a refund or a redeemed code arrives as a
/// transaction update, which ``TallyKit/PurchaseManager`` delivers.
///
/// Each sheet can be given the window scene to show in (`in:`): an app with several windows
/// passes the one the customer uses, and code that runs in an app extension must, since
/// those functions never touch `UIApplication.shared`. The functions without a scene take the
/// scene in front, through `UIApplication.shared`, so they are unavailable in app extensions.
@MainActor
public enum AppStoreSheets {
    /// What came of a refund request.
    public enum RefundRequest: String, Sendable {
        /// Apple received it; the decision comes later, as a transaction update.
        case submitted
        /// The customer closed the sheet.
        case cancelled
        /// It could not be asked here (no scene, an older system, a platform without the
        /// sheet) or StoreKit refused it (a request made already): send people to
        /// reportaproblem.apple.com.
        case unavailable
    }

    /// Shows Apple's manage-subscriptions sheet inside the app where StoreKit can (iOS 15 and
    /// visionOS, in the scene in front); elsewhere, or when the sheet fails, opens Apple's page
    /// (``TallyKit/SubscriptionProfileModel/manageSubscriptionsURL``) with `openURL`.
    /// - Parameter openURL: opens a web page: SwiftUI's `openURL`, or `UIApplication.shared.open`.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    public static func manageSubscriptions(openURL: (URL) -> Void) async {
        #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        await manageSubscriptions(in: sceneInFront(), openURL: openURL)
        #else
        openURL(SubscriptionProfileModel.manageSubscriptionsURL)
        #endif
    }

    /// Shows Apple's refund request sheet for a transaction (iOS 15 and visionOS), in the scene
    /// in front.
    /// - Parameter transactionID: the transaction, as ``TallyKit/DeliveryReceipt/transactionID`` has it.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    public static func requestRefund(transactionID: String) async -> RefundRequest {
        #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        return await requestRefund(transactionID: transactionID, in: sceneInFront())
        #else
        return .unavailable
        #endif
    }

    /// Shows Apple's offer code sheet (iOS 14 and visionOS), in the scene in front from iOS 16;
    /// `false` when it could not be shown. A redeemed code arrives as a transaction update.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    @discardableResult
    public static func redeemOfferCode() async -> Bool {
        #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        return await redeemOfferCode(in: sceneInFront())
        #else
        return false
        #endif
    }

    #if canImport(StoreKit) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
    /// Shows Apple's manage-subscriptions sheet in `scene` (iOS 15 and visionOS); without a
    /// scene, on an older system, or when the sheet fails, opens Apple's page
    /// (``TallyKit/SubscriptionProfileModel/manageSubscriptionsURL``) with `openURL`.
    /// Safe in app extensions.
    /// - Parameters:
    ///   - scene: the window scene to show the sheet in.
    ///   - openURL: opens a web page: SwiftUI's `openURL`, or the extension context's `open`.
    public static func manageSubscriptions(in scene: UIWindowScene?, openURL: (URL) -> Void) async {
        if #available(iOS 15, visionOS 1, *), let scene {
            do {
                try await AppStore.showManageSubscriptions(in: scene)
                return
            } catch {
                // The page below does the same.
            }
        }
        openURL(SubscriptionProfileModel.manageSubscriptionsURL)
    }

    /// Shows Apple's refund request sheet for a transaction in `scene` (iOS 15 and visionOS).
    /// Safe in app extensions.
    /// - Parameters:
    ///   - transactionID: the transaction, as ``TallyKit/DeliveryReceipt/transactionID`` has it.
    ///   - scene: the window scene to show the sheet in; `nil` is `.unavailable`.
    public static func requestRefund(transactionID: String, in scene: UIWindowScene?) async -> RefundRequest {
        if #available(iOS 15, visionOS 1, *), let id = UInt64(transactionID), let scene {
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
        return .unavailable
    }

    /// Shows Apple's offer code sheet: StoreKit 2's in `scene` from iOS 16 and on visionOS
    /// (`false` without a scene), StoreKit 1's on iOS 14 and 15 (which finds its window
    /// itself). `false` when it could not be shown. A redeemed code arrives as a transaction
    /// update. Safe in app extensions.
    /// - Parameter scene: the window scene to show the sheet in.
    @discardableResult
    public static func redeemOfferCode(in scene: UIWindowScene?) async -> Bool {
        if #available(iOS 16, visionOS 1, *) {
            guard let scene else { return false }
            do {
                try await AppStore.presentOfferCodeRedeemSheet(in: scene)
                return true
            } catch {
                return false
            }
        }
        #if os(iOS)
        if #available(iOS 14, *) {
            SKPaymentQueue.default().presentCodeRedemptionSheet()
            return true
        }
        #endif
        return false
    }

    /// The window scene the customer looks at.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    static func sceneInFront() -> UIWindowScene? {
        UIApplication.shared.connectedScenes.first(where: { $0.activationState == .foregroundActive }) as? UIWindowScene
    }
    #endif
}
#endif
