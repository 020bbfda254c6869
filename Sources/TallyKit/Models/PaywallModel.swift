import Foundation
public import Observation
public import TallyCore

#if canImport(Combine)
public import Combine
#endif

/// The state of a paywall, for SwiftUI (Observation from iOS 17, `ObservableObject` from iOS 13)
/// and UIKit (``onChange``): one item per product with its texts, the store's localized price and the state of its
/// purchase button; the error to show, if any.
///
/// Two taps from the paywall to the payment confirmation: the purchase button, then the
/// store's sheet. A cancelled sheet shows nothing and changes nothing.
///
/// ```swift
/// let paywall = PaywallModel(manager: manager, productIDs: ["com.zorya.report.career"])
/// await paywall.load()
/// Button(paywall.items[0].buttonTitle) { Task { await paywall.purchase(paywall.items[0].id) } }
///     .disabled(paywall.items[0].button != .idle)
/// ```
@MainActor
public final class PaywallModel: ObservedModel {
    /// The state of a purchase button.
    public enum ButtonState: String, Sendable, Hashable {
        /// Ready to buy.
        case idle
        /// A purchase is under way: show a spinner, ignore taps.
        case purchasing
        /// Cannot be bought now: no price from the store, owned already, or (when the manager
        /// blocks buying while a credit is unused) a credit it grants is unused;
        /// ``Item/disabledReason`` says why when there is something to explain.
        case disabled
    }

    /// One product on the paywall.
    public struct Item: Sendable, Hashable, Identifiable {
        /// The product identifier.
        public let id: String
        /// The title.
        public let title: String
        /// What it is.
        public let description: String
        /// What the customer gets.
        public let benefits: [String]
        /// How the AI analysis works, for products that are one.
        public let aiExplanation: String?
        /// The store's localized price; `nil` when the store did not describe the product.
        public let displayPrice: String?
        /// The introductory offer in words ("1 week free, then $4.99 / month"), shown only when
        /// the store says this customer may still take it; `nil` otherwise.
        public let introductoryOffer: String?
        /// The purchase button's state.
        public var button: ButtonState
        /// The purchase button's label ("Buy for $4.99", "Purchasing…", "1 unused credit").
        public var buttonTitle: String
        /// Why the button is disabled, to show beside it ("Use your unused credit for this
        /// report before buying another."); `nil` when it is not, or when its title says it all.
        public var disabledReason: String?
    }

    /// What the paywall shows; see ``ModelObservation``.
    struct State {
        var items: [Item] = []
        var error: ErrorPresentation?
        var errorCode: TallyError.Code?
        var lastPurchase: DeliveryReceipt?
        var isPending = false
        var isProcessing = false
        var sellsKeptProducts = false
        var sellsSubscriptions = false
    }
    #if canImport(Combine)
    @Published var storage = State()
    #else
    var storage = State()
    #endif
    let observation = ModelObservation()

    /// The products, in the order asked for.
    public var items: [Item] { state.items }
    /// The error to show; `nil` when there is none (a cancelled purchase is not an error).
    public var error: ErrorPresentation? { state.error }
    /// The code of ``error``, for code that reacts to it.
    public var errorCode: TallyError.Code? { state.errorCode }
    /// The last purchase that completed, for navigating on (to the report generation screen, say).
    public var lastPurchase: DeliveryReceipt? { state.lastPurchase }
    /// Whether a purchase waits for approval (Ask to Buy).
    public var isPending: Bool { state.isPending }
    /// The message to show while a purchase waits for approval.
    public var pendingMessage: String { LocalizedStrings.table(for: language)["paywall.pending"] }
    /// Whether the last purchase was paid and its credit is still on its way (see ``processingMessage``).
    public var isProcessing: Bool { state.isProcessing }
    /// What to show while a paid purchase is being delivered.
    public var processingMessage: String { LocalizedStrings.table(for: language)["paywall.processing"] }
    /// The restore button's label.
    public var restoreTitle: String {
        LocalizedStrings.table(for: language)[state.sellsKeptProducts ? "paywall.restore.subscriptions" : "paywall.restore"]
    }
    /// Whether any product shown is an auto-renewable subscription: show the manage-subscriptions link.
    public var sellsSubscriptions: Bool { state.sellsSubscriptions }
    /// The manage-subscriptions link's label.
    public var manageTitle: String { LocalizedStrings.table(for: language)["profile.manage"] }
    /// The terms of use link's label.
    public var termsTitle: String { LocalizedStrings.table(for: language)["paywall.terms"] }
    /// The privacy policy link's label.
    public var privacyTitle: String { LocalizedStrings.table(for: language)["paywall.privacy"] }
    /// The products shown that are kept once bought (subscriptions, lifetime unlocks).
    private var keptProducts: Set<String> = []
    /// What each product shown grants, as last loaded.
    private var grants: [ProductGrant] = []
    /// Called after every change, for UIKit screens that do not observe.
    public var onChange: (@MainActor (PaywallModel) -> Void)?

    /// The language of texts and errors.
    public let language: TallyLanguage
    private let manager: PurchaseManager
    private let productIDs: [String]?

    /// - Parameters:
    ///   - manager: the purchase manager.
    ///   - productIDs: the products to show, in order; all of the manager's by default.
    ///   - language: the language of texts and errors; the manager's by default.
    public init(manager: PurchaseManager, productIDs: [String]? = nil, language: TallyLanguage? = nil) {
        self.manager = manager
        self.productIDs = productIDs
        self.language = language ?? manager.configuration.language
    }

    /// Loads texts from the catalog and prices from the store.
    public func load() async {
        let ids = productIDs ?? manager.configuration.productIDs
        let details = (try? await manager.products()) ?? []
        let grants: [ProductGrant]
        do {
            grants = try await manager.catalog(language: language)
        } catch {
            show(error)
            grants = []
        }
        let strings = LocalizedStrings.table(for: language)
        let account = try? await manager.account(.fromCacheOnly)
        self.grants = grants
        keptProducts = Set(grants.filter { ids.contains($0.id) && $0.kind != .consumable }.map(\.id))
        state.sellsKeptProducts = !keptProducts.isEmpty
        state.sellsSubscriptions = grants.contains { ids.contains($0.id) && $0.kind == .autoRenewable }
        state.items = ids.compactMap { id in
            let grant = grants.first { $0.id == id }
            let product = details.first { $0.id == id }
            guard grant != nil || product != nil else { return nil }
            let price = product?.displayPrice
            // A kept product whose entitlements are all active is owned: nothing to buy.
            let owned =
                grant.map { $0.kind != .consumable && !$0.entitlements.isEmpty && $0.entitlements.allSatisfy { account?.isActive($0) == true } } ?? false
            var item = Item(
                id: id, title: grant?.paywall.title ?? product?.displayName ?? id,
                description: grant?.paywall.description ?? product?.description ?? "", benefits: grant?.paywall.benefits ?? [],
                aiExplanation: grant?.paywall.aiExplanation, displayPrice: price,
                introductoryOffer: product.flatMap { Self.introductoryOffer($0, language: language) },
                button: price == nil || owned ? .disabled : .idle,
                buttonTitle: owned
                    ? strings["paywall.button.owned"]
                    : price.map { strings["paywall.button.buy"].replacingOccurrences(of: "%@", with: $0) } ?? strings["paywall.button.unavailable"],
                disabledReason: nil)
            if item.button == .idle, let balances = account?.snapshot.balances { blockIfUnused(&item, grant: grant, balances: balances) }
            return item
        }
        changed()
    }

    /// A subscription's introductory offer in words, when the customer is eligible for it.
    static func introductoryOffer(_ product: ProductDetails, language: TallyLanguage) -> String? {
        guard let terms = product.subscription, terms.isEligibleForIntroductoryOffer, let offer = terms.introductoryOffer else { return nil }
        let strings = LocalizedStrings.table(for: language)
        let unit = { (period: SubscriptionTerms.Period) in
            period.value == 1 ? strings["period.\(period.unit.rawValue)"] : strings.counted("period.\(period.unit.rawValue)", count: Int64(period.value))
        }
        let total = SubscriptionTerms.Period(value: offer.period.value * max(1, offer.periodCount), unit: offer.period.unit)
        let key =
            switch offer.paymentMode {
            case .freeTrial: "paywall.offer.free"
            case .payAsYouGo: "paywall.offer.pay_as_you_go"
            case .payUpFront: "paywall.offer.pay_up_front"
            }
        return strings[key]
            .replacingOccurrences(of: "{duration}", with: strings.counted("period.\(total.unit.rawValue)", count: Int64(total.value)))
            .replacingOccurrences(of: "{offer_price}", with: offer.displayPrice)
            .replacingOccurrences(of: "{offer_unit}", with: unit(offer.period))
            .replacingOccurrences(of: "{price}", with: product.displayPrice)
            .replacingOccurrences(of: "{unit}", with: unit(terms.period))
    }

    /// When the manager refuses to buy while a credit is unused, shows that on the button
    /// before the tap rather than as an error after it.
    private func blockIfUnused(_ item: inout Item, grant: ProductGrant?, balances: [Balance]) {
        guard manager.configuration.blocksPurchaseWhileCreditUnused, let grant else { return }
        let unused =
            grant.grants.map { amount in
                balances.first { $0.currency == amount.currency }.map { $0.available + $0.held } ?? 0
            }.max() ?? 0
        guard unused > 0 else { return }
        let strings = LocalizedStrings.table(for: language)
        item.button = .disabled
        item.buttonTitle = strings.counted("unused.credits", count: unused)
        item.disabledReason = strings["error.unused_credit.message"]
    }

    /// Buys a product: the button shows progress and ignores taps until it is over.
    /// - Returns: the outcome, or `nil` when it failed (``error`` says why).
    @discardableResult
    public func purchase(_ productID: String) async -> PurchaseManager.PurchaseOutcome? {
        guard let index = items.firstIndex(where: { $0.id == productID }), state.items[index].button == .idle else { return nil }
        var idle = items[index]
        state.items[index].button = .purchasing
        state.items[index].buttonTitle = LocalizedStrings.table(for: language)["paywall.button.purchasing"]
        state.error = nil
        state.errorCode = nil
        changed()
        defer {
            if let index = items.firstIndex(where: { $0.id == productID }) { state.items[index] = idle }
            changed()
        }
        do {
            let outcome = try await manager.purchase(productID)
            switch outcome {
            case .purchased(let receipt):
                state.lastPurchase = receipt
                state.isPending = false
                state.isProcessing = false
                // A kept product, once bought, is owned: its button does not come back as Buy.
                if keptProducts.contains(productID), !receipt.entitlements.filter(\.active).isEmpty {
                    idle.button = .disabled
                    idle.buttonTitle = LocalizedStrings.table(for: language)["paywall.button.owned"]
                }
                // A credit bought while buying is blocked until it is used: the button says so.
                blockIfUnused(&idle, grant: grants.first { $0.id == productID }, balances: receipt.balances)
            case .pending: state.isPending = true
            case .deliveryPending: state.isProcessing = true
            case .cancelled: break
            }
            return outcome
        } catch {
            show(error)
            return nil
        }
    }

    /// Restores interrupted purchases; a failure shows an error and blocks nothing.
    public func restore() async {
        do {
            _ = try await manager.restore()
        } catch {
            show(TallyError(.restoreFailed, error.reason))
        }
        changed()
    }

    /// What the error's "Try Again" does: after a payment whose delivery failed, delivers it
    /// again (``PurchaseManager/retryUndelivered()``) rather than buying again; otherwise
    /// hides the error, and the customer taps the product again.
    public func tryAgain() async {
        let failed = errorCode
        dismissError()
        guard let failed, [.verificationFailed, .serverUnavailable, .networkError, .verificationUnavailable, .rateLimited].contains(failed)
        else { return }
        do {
            if let receipt = try await manager.retryUndelivered().last {
                state.lastPurchase = receipt
                state.isProcessing = false
            }
        } catch {
            show(error)
        }
        changed()
    }

    /// Hides the error.
    public func dismissError() {
        state.error = nil
        state.errorCode = nil
        changed()
    }

    private func show(_ failure: TallyError) {
        state.error = failure.presentation(in: language)
        state.errorCode = failure.code
    }

    private func changed() { onChange?(self) }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension PaywallModel: Observable {}

#if canImport(Combine)
extension PaywallModel: ObservableObject {}
#endif
