import Foundation
public import Observation
public import TallyCore

#if canImport(Combine)
public import Combine
#endif

/// The state of a paywall, for SwiftUI (Observation from iOS 17, `ObservableObject` from iOS 13)
/// and UIKit (``onChange``): one item per product with its texts, the store's localized price and the state of its
/// purchase button; what a restore found; the error to show, if any.
///
/// Two taps from the paywall to the payment confirmation: the purchase button, then the
/// store's sheet. A cancelled sheet shows nothing and changes nothing.
///
/// An auto-renewable subscription's item says what App Review requires (guideline 3.1.2):
/// its title, its price per billing period and that it renews until cancelled
/// (``Item/billingText``), whether or not an introductory offer applies; its button says
/// "Subscribe". Show the terms of use and privacy policy beside it.
///
/// ```swift
/// let paywall = PaywallModel(manager: manager, productIDs: ["com.tally.zorya.report.career"])
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
        /// What the customer pays and for how long, to show under the title: for an
        /// auto-renewable subscription its price per billing period and that it renews
        /// ("$4.99 / month, renews automatically until cancelled", "$9.99 / 3 months, …"); for a
        /// non-renewing one its price and length ("$14.99 for 90 days, does not renew"); `nil`
        /// for other products, whose price is on the button, and when the store did not describe it.
        public let billingText: String?
        /// The introductory offer in words ("1 week free, then $4.99 / month"), shown only when
        /// the store says this customer may still take it; `nil` otherwise.
        public let introductoryOffer: String?
        /// The purchase button's state.
        public var button: ButtonState
        /// The purchase button's label ("Buy for $4.99", "Subscribe", "Purchasing…", "1 unused credit").
        public var buttonTitle: String
        /// Why the button is disabled, to show beside it ("Use your unused credit for this
        /// report before buying another."); `nil` when it is not, or when its title says it all.
        public var disabledReason: String?
    }

    /// What a restore found, for the paywall to say so (``restoreMessage``).
    public enum RestoreOutcome: String, Sendable, Hashable {
        /// At least one purchase was delivered again or found delivered.
        case restored
        /// The store has nothing this account could get back.
        case nothingToRestore = "nothing_to_restore"
    }

    /// What "Try Again" does for the error shown: chosen when the error is shown, so that
    /// hiding the alert first (as SwiftUI does) does not lose it.
    private enum Retry: Equatable {
        /// Delivers the paid, undelivered transactions again; never buys again.
        case delivery
        /// Buys again: only for a purchase refused before the store was asked.
        case purchase(String, PurchaseScene?)
        /// Restores again.
        case restore
        /// Loads the products again.
        case load
    }

    /// What the paywall shows; see ``ModelObservation``.
    struct State {
        var items: [Item] = []
        var error: ErrorPresentation?
        var errorCode: TallyError.Code?
        var restoreOutcome: RestoreOutcome?
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
    /// The error to show; `nil` when there is none (a cancelled purchase is not an error). Its
    /// action is "Try Again" only when ``tryAgain()`` can do it again; otherwise "OK".
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
    /// What the last restore found; `nil` before one, while one runs, when it failed (``error``
    /// says so) and once a purchase starts.
    public var restoreOutcome: RestoreOutcome? { state.restoreOutcome }
    /// ``restoreOutcome`` in words, to show under the restore button: "Purchases restored" or
    /// "Nothing to restore"; `nil` when there is nothing to say.
    public var restoreMessage: String? {
        state.restoreOutcome.map { LocalizedStrings.table(for: language)[$0 == .restored ? "paywall.restore.done" : "paywall.restore.nothing"] }
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
    /// What ``tryAgain()`` does for the error shown last; `nil` when it cannot help.
    private var retry: Retry?
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
            show(error, retry: .load)
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
            let subscribes = (grant?.kind ?? product?.kind) == .autoRenewable
            // A kept product whose entitlements are all active is owned: nothing to buy.
            let owned =
                grant.map { $0.kind != .consumable && !$0.entitlements.isEmpty && $0.entitlements.allSatisfy { account?.isActive($0) == true } } ?? false
            var item = Item(
                id: id, title: grant?.paywall.title ?? product?.displayName ?? id,
                description: grant?.paywall.description ?? product?.description ?? "", benefits: grant?.paywall.benefits ?? [],
                aiExplanation: grant?.paywall.aiExplanation, displayPrice: price,
                billingText: product.flatMap { Self.billingText($0, durationDays: grant?.durationDays, language: language) },
                introductoryOffer: product.flatMap { Self.introductoryOffer($0, language: language) },
                button: price == nil || owned ? .disabled : .idle,
                buttonTitle: owned
                    ? strings["paywall.button.owned"]
                    : price.map { subscribes ? strings["paywall.button.subscribe"] : strings["paywall.button.buy"].replacingOccurrences(of: "%@", with: $0) }
                        ?? strings["paywall.button.unavailable"],
                disabledReason: nil)
            if item.button == .idle, let balances = account?.snapshot.balances { blockIfUnused(&item, grant: grant, balances: balances) }
            return item
        }
        changed()
    }

    /// What a subscription costs and for how long, in words; `nil` for other products.
    /// - Parameters:
    ///   - product: the store's description.
    ///   - durationDays: a non-renewing subscription's length, from the catalog.
    ///   - language: the language.
    static func billingText(_ product: ProductDetails, durationDays: Int?, language: TallyLanguage) -> String? {
        let strings = LocalizedStrings.table(for: language)
        switch product.kind {
        case .autoRenewable:
            guard let terms = product.subscription else { return nil }
            return strings["paywall.billing.renews"]
                .replacingOccurrences(of: "{price_per_period}", with: strings.pricePerPeriod(product.displayPrice, terms.period))
        case .nonRenewing:
            guard let days = durationDays, days > 0 else { return nil }
            return strings["paywall.billing.non_renewing"]
                .replacingOccurrences(of: "{price}", with: product.displayPrice)
                .replacingOccurrences(of: "{duration}", with: strings.counted("period.day", count: Int64(days)))
        default:
            return nil
        }
    }

    /// A subscription's introductory offer in words, when the customer is eligible for it.
    static func introductoryOffer(_ product: ProductDetails, language: TallyLanguage) -> String? {
        guard let terms = product.subscription, terms.isEligibleForIntroductoryOffer, let offer = terms.introductoryOffer else { return nil }
        let strings = LocalizedStrings.table(for: language)
        let unit = { (period: SubscriptionTerms.Period) in strings.unit(period) }
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
    /// - Parameters:
    ///   - productID: the product.
    ///   - scene: the scene to show the payment sheet in (see ``PurchaseScene``); on visionOS
    ///     one is needed.
    /// - Returns: the outcome, or `nil` when it failed (``error`` says why).
    @discardableResult
    public func purchase(_ productID: String, confirmIn scene: PurchaseScene? = nil) async -> PurchaseManager.PurchaseOutcome? {
        guard let index = items.firstIndex(where: { $0.id == productID }), state.items[index].button == .idle else { return nil }
        var idle = items[index]
        state.items[index].button = .purchasing
        state.items[index].buttonTitle = LocalizedStrings.table(for: language)["paywall.button.purchasing"]
        state.error = nil
        state.errorCode = nil
        state.restoreOutcome = nil
        retry = nil
        changed()
        defer {
            if let index = items.firstIndex(where: { $0.id == productID }) { state.items[index] = idle }
            changed()
        }
        do {
            let outcome = try await manager.purchase(productID, confirmIn: scene)
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
            show(error, retry: Self.retryAfterPurchase(of: productID, in: scene, failingWith: error.code))
            return nil
        }
    }

    /// What "Try Again" can do after a purchase failed with `code`. A refused verification
    /// happened after the payment: the delivery is tried again, never the payment. Offline,
    /// nothing was started: the purchase is. Any other failure may have reached the store, so
    /// buying again is the customer's own tap, and the alert says "OK".
    private static func retryAfterPurchase(of productID: String, in scene: PurchaseScene?, failingWith code: TallyError.Code) -> Retry? {
        switch code {
        case .verificationFailed: .delivery
        case .networkUnavailable: .purchase(productID, scene)
        default: nil
        }
    }

    /// Restores purchases, then says what it found (``restoreOutcome``); a failure shows an
    /// error whose "Try Again" restores again, and blocks nothing.
    public func restore() async {
        state.restoreOutcome = nil
        state.error = nil
        state.errorCode = nil
        retry = nil
        changed()
        do {
            let restored = try await manager.restore()
            state.restoreOutcome = restored.receipts.isEmpty ? .nothingToRestore : .restored
            // What was restored is owned now: its button says so.
            if !restored.receipts.isEmpty {
                let outcome = state.restoreOutcome
                await load()
                state.restoreOutcome = outcome
            }
        } catch {
            show(TallyError(.restoreFailed, error.reason), retry: .restore)
        }
        changed()
    }

    /// What the error's "Try Again" does, decided when the error was shown, so it works
    /// whether or not ``dismissError()`` ran first: after a payment whose delivery failed,
    /// delivers it again (``PurchaseManager/retryUndelivered()``), never buying again; after a
    /// purchase refused offline, buys again; after a failed restore or load, restores or loads
    /// again. It does each once per error shown; an error whose action is "OK" only hides.
    public func tryAgain() async {
        let retry = self.retry
        self.retry = nil
        if state.error != nil { dismissError() }
        switch retry {
        case nil:
            return
        case .purchase(let productID, let scene):
            await purchase(productID, confirmIn: scene)
        case .restore:
            await restore()
        case .load:
            await load()
        case .delivery:
            do {
                if let receipt = try await manager.retryUndelivered().last {
                    state.lastPurchase = receipt
                    state.isProcessing = false
                }
            } catch {
                show(error, retry: .delivery)
            }
            changed()
        }
    }

    /// Hides the error. What its "Try Again" would do stays, for ``tryAgain()`` called after it
    /// (SwiftUI hides an alert before its action runs).
    public func dismissError() {
        state.error = nil
        state.errorCode = nil
        changed()
    }

    /// Shows an error; its action is "Try Again" only when there is something to try again.
    private func show(_ failure: TallyError, retry: Retry?) {
        var presentation = failure.presentation(in: language)
        if presentation.action == .tryAgain, retry == nil {
            presentation = ErrorPresentation(
                title: presentation.title, message: presentation.message, action: .ok,
                actionTitle: LocalizedStrings.table(for: language)["action.ok"])
        }
        self.retry = presentation.action == .tryAgain ? retry : nil
        state.error = presentation
        state.errorCode = failure.code
    }

    private func changed() { onChange?(self) }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension PaywallModel: Observable {}

#if canImport(Combine)
extension PaywallModel: ObservableObject {}
#endif
