// The public API of TallyUI, pinned: every public declaration is referenced once, with its
// type written out, in functions that are never called. scripts/check_api.sh typechecks this
// file and checks that every public symbol of the module is referenced here, so a change of the
// public surface (a symbol added, removed, renamed, or its type changed) fails the test command.
// Drafted by scripts/api_tester.py from the module's symbol graph, then fixed by hand.

import Foundation
import SwiftUI
import TallyCore
import TallyKit
import TallyTesting
import TallyUI
import TallyVerify
import UIKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A value of any type, for arguments of the right type in calls that never run.
private func value<T>(_: T.Type = T.self) -> T { fatalError("never called") }

@MainActor func checkAppStoreSheets() async throws {
    _ = AppStoreSheets.self
    _ = AppStoreSheets.RefundRequest.self
    let _: AppStoreSheets.RefundRequest = .cancelled
    let _: AppStoreSheets.RefundRequest? = await AppStoreSheets.RefundRequest(rawValue: value() as String)
    let _: AppStoreSheets.RefundRequest = .submitted
    let _: AppStoreSheets.RefundRequest = .unavailable
    await AppStoreSheets.manageSubscriptions(openURL: value() as (URL) -> Void)
    let _: Bool = await AppStoreSheets.redeemOfferCode()
    let _: AppStoreSheets.RefundRequest = await AppStoreSheets.requestRefund(transactionID: value() as String)
    await AppStoreSheets.manageSubscriptions(in: value() as UIWindowScene?, openURL: value() as (URL) -> Void)
    let _: AppStoreSheets.RefundRequest = await AppStoreSheets.requestRefund(transactionID: value() as String, in: value() as UIWindowScene?)
    let _: Bool = await AppStoreSheets.redeemOfferCode(in: value() as UIWindowScene?)
}

@MainActor func checkCreditsBalanceView() async throws {
    _ = CreditsBalanceView.self
    let _: KeyPath<CreditsBalanceView, CreditsBalanceView.Body> = \.body
    let _: CreditsBalanceView = await CreditsBalanceView(model: value() as CreditsBalanceModel, language: value() as TallyLanguage)
}

@MainActor func checkInsufficientCreditsAlert() async throws {
    let _: UIAlertController = await (value() as InsufficientCreditsAlert).alertController(buy: value() as @MainActor () -> Void)
}

@MainActor func checkPaywallLinks() async throws {
    _ = PaywallLinks.self
    let _: PaywallLinks = await PaywallLinks(terms: value() as URL, privacy: value() as URL)
    let _: KeyPath<PaywallLinks, URL> = \.privacy
    let _: KeyPath<PaywallLinks, URL> = \.terms
}

@MainActor func checkPaywallView() async throws {
    _ = PaywallView.self
    let _: KeyPath<PaywallView, PaywallView.Body> = \.body
    let _: PaywallView = await PaywallView(model: value() as PaywallModel, links: value() as PaywallLinks)
}

@MainActor func checkPaywallViewController() async throws {
    _ = PaywallViewController.self
    let _: PaywallViewController = await PaywallViewController(model: value() as PaywallModel, links: value() as PaywallLinks)
    let _: KeyPath<PaywallViewController, PaywallModel> = \.model
}

@MainActor func checkStoreMessages() async throws {
    _ = StoreMessages.self
    let _: StoreMessages = await StoreMessages(deferred: value() as Bool)
    let _: KeyPath<StoreMessages, Bool> = \.isDeferred
    await (value() as StoreMessages).showWaiting()
    let _: KeyPath<StoreMessages, Int> = \.waitingCount
}

@MainActor func checkSubscriptionProfileView() async throws {
    _ = SubscriptionProfileView.self
    let _: KeyPath<SubscriptionProfileView, SubscriptionProfileView.Body> = \.body
    let _: SubscriptionProfileView = await SubscriptionProfileView(model: value() as SubscriptionProfileModel)
}

@MainActor func checkSubscriptionProfileViewController() async throws {
    _ = SubscriptionProfileViewController.self
    let _: SubscriptionProfileViewController = await SubscriptionProfileViewController(model: value() as SubscriptionProfileModel)
    let _: KeyPath<SubscriptionProfileViewController, SubscriptionProfileModel> = \.model
}

@MainActor func checkView() async throws {
    _ = await (value() as View).insufficientCreditsAlert(value() as Binding<InsufficientCreditsAlert?>, buy: value() as () -> Void)
}
