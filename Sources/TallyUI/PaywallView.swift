// SwiftUI exists on Apple platforms only (checked on Linux by scripts/check_apple_sources.sh).
#if canImport(SwiftUI)
public import Foundation
public import SwiftUI
public import TallyKit

/// The links a paywall must show beside its products (App Review guideline 3.1.2).
public struct PaywallLinks: Sendable, Hashable {
    /// The terms of use (Apple's standard EULA or the app's own).
    public let terms: URL
    /// The privacy policy.
    public let privacy: URL

    /// - Parameters:
    ///   - terms: the terms of use.
    ///   - privacy: the privacy policy.
    public init(terms: URL, privacy: URL) {
        self.terms = terms
        self.privacy = privacy
    }
}

/// A paywall over a ``TallyKit/PaywallModel``: each product with its texts, benefits, store
/// price (for a subscription, per billing period and that it renews until cancelled),
/// introductory offer, and a purchase button two taps from the payment sheet ("Subscribe" for
/// a subscription); restore and what it found, the manage-subscriptions link when a
/// subscription is sold, the terms and privacy links, and the model's error as an alert whose
/// "Try Again" tries again.
///
/// ```swift
/// @StateObject var paywall = PaywallModel(manager: manager)
/// PaywallView(model: paywall, links: PaywallLinks(terms: terms, privacy: privacy))
/// ```
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
@available(iOSApplicationExtension, unavailable)
@available(visionOSApplicationExtension, unavailable)
@MainActor
public struct PaywallView: View {
    @ObservedObject private var model: PaywallModel
    private let links: PaywallLinks
    @Environment(\.openURL) private var openURL

    /// - Parameters:
    ///   - model: the paywall; the view loads it when it appears.
    ///   - links: the terms of use and privacy policy.
    public init(model: PaywallModel, links: PaywallLinks) {
        self.model = model
        self.links = links
    }

    /// Buys in the scene in front on visionOS, which has no payment sheet without one;
    /// elsewhere StoreKit chooses the window.
    private func buy(_ productID: String) async {
        #if os(visionOS)
        await model.purchase(productID, confirmIn: .inFront)
        #else
        await model.purchase(productID)
        #endif
    }

    public var body: some View {
        ScrollView {
            VStack(alignment: .leading, spacing: 16) {
                ForEach(model.items) { item in
                    PaywallItemView(item: item) { Task { await buy(item.id) } }
                }
                if model.isPending { Text(model.pendingMessage).font(.footnote) }
                if model.isProcessing { Text(model.processingMessage).font(.footnote) }
                Button(model.restoreTitle) { Task { await model.restore() } }
                if let restored = model.restoreMessage { Text(restored).font(.footnote) }
                if model.sellsSubscriptions {
                    Button(model.manageTitle) { Task { await AppStoreSheets.manageSubscriptions(openURL: { openURL($0) }) } }
                }
                HStack(spacing: 16) {
                    Link(model.termsTitle, destination: links.terms)
                    Link(model.privacyTitle, destination: links.privacy)
                }
                .font(.footnote)
            }
            .padding()
        }
        .onAppear { Task { await model.load() } }
        // Hiding the alert (the setter) keeps what its "Try Again" does: SwiftUI may hide it
        // before the action's task runs.
        .alert(isPresented: Binding(get: { @MainActor in model.error != nil }, set: { @MainActor in if !$0 { model.dismissError() } })) {
            errorAlert(model.error) { Task { await model.tryAgain() } }
        }
    }
}

/// One product on the paywall.
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
@MainActor
struct PaywallItemView: View {
    let item: PaywallModel.Item
    let buy: @MainActor () -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text(item.title).font(.headline)
            // The billed amount and its period, more prominent than any introductory offer (3.1.2).
            if let billing = item.billingText { Text(billing).font(.headline) }
            if !item.description.isEmpty { Text(item.description) }
            ForEach(item.benefits, id: \.self) { benefit in Text(verbatim: "• " + benefit) }
            if let explanation = item.aiExplanation { Text(explanation).font(.footnote).foregroundColor(.secondary) }
            if let offer = item.introductoryOffer { Text(offer).font(.subheadline).foregroundColor(.accentColor) }
            Button(action: buy) {
                HStack(spacing: 8) {
                    if item.button == .purchasing { ProgressView() }
                    Text(item.buttonTitle).font(.headline)
                }
                .frame(maxWidth: .infinity)
                .padding()
            }
            .disabled(item.button != .idle)
            if let reason = item.disabledReason { Text(reason).font(.footnote).foregroundColor(.secondary) }
        }
    }
}

/// The alert of an ``TallyKit/ErrorPresentation``: its action button runs `retry` when the action
/// is "Try Again"; "OK" only closes the alert.
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
@MainActor
func errorAlert(_ presentation: ErrorPresentation?, retry: @escaping () -> Void) -> Alert {
    guard let presentation else { return Alert(title: Text(verbatim: "")) }
    switch presentation.action {
    case .tryAgain:
        return Alert(
            title: Text(presentation.title), message: Text(presentation.message),
            primaryButton: .default(Text(presentation.actionTitle), action: retry), secondaryButton: .cancel())
    case .ok:
        return Alert(
            title: Text(presentation.title), message: Text(presentation.message), dismissButton: .default(Text(presentation.actionTitle)))
    }
}
#endif
