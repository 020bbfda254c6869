public import Foundation
public import Observation
import TallyCore

#if canImport(Combine)
public import Combine
#endif

/// The subscription section of a profile screen, for SwiftUI (Observation from iOS 17,
/// `ObservableObject` from iOS 13) and UIKit (``onChange``): the plan and its price, a Pro badge while it gives access, the renewal or end
/// date in words, and where to manage it.
///
/// ```swift
/// let profile = SubscriptionProfileModel(manager: manager, entitlement: "pro")
/// await profile.update()
/// Text(profile.plan?.title ?? "Free"); Text(profile.plan?.statusText ?? "")
/// if profile.isPro { Text(profile.badgeTitle) }
/// Link(profile.manageTitle, destination: SubscriptionProfileModel.manageSubscriptionsURL)
/// ```
@MainActor
public final class SubscriptionProfileModel: ObservedModel {
    /// Where a subscription stands.
    public enum Status: Sendable, Hashable {
        /// Active, and renews on the date.
        case renews(on: Date)
        /// Active until the date; it will not renew (the customer turned renewal off).
        case ends(on: Date)
        /// The last payment failed; access goes on until the date while the App Store retries.
        case paymentProblem(accessUntil: Date)
        /// Ended on the date, or with no known date.
        case expired(on: Date?)
        /// Active, with no end date (a lifetime unlock).
        case lifetime
    }

    /// The customer's plan.
    public struct Plan: Sendable, Hashable {
        /// The product.
        public let productID: String
        /// Its name, as the store localizes it (the catalog's paywall title when the store has none).
        public let title: String
        /// Its price as the store shows it, when known.
        public let displayPrice: String?
        /// Its price per billing period ("$4.99 / month", "$9.99 / 3 months"), for an
        /// auto-renewable subscription the store describes; `nil` otherwise (show ``displayPrice``).
        public let billingText: String?
        /// Where it stands.
        public let status: Status
        /// ``status`` in words, in the model's language ("Renews on 1 April 2026").
        public let statusText: String
    }

    /// Apple's page where customers manage and cancel their subscriptions. On iOS 15 and later
    /// StoreKit's `showManageSubscriptions(in:)` shows it inside the app.
    public static let manageSubscriptionsURL = URL(string: "https://apps.apple.com/account/subscriptions")!

    /// What the model shows; see ``ModelObservation``.
    struct State {
        var plan: Plan?
        var isPro = false
    }
    #if canImport(Combine)
    @Published var storage = State()
    #else
    var storage = State()
    #endif
    let observation = ModelObservation()

    /// The plan that gives the entitlement, or the last one that did; `nil` when there was none.
    public var plan: Plan? { state.plan }
    /// Whether the entitlement is active now: show the badge.
    public var isPro: Bool { state.isPro }
    /// Called after every change, for UIKit screens that do not observe.
    public var onChange: (@MainActor (SubscriptionProfileModel) -> Void)?

    /// The language of texts.
    public let language: TallyLanguage
    private let manager: PurchaseManager
    private let entitlement: String
    private var following: Task<Void, Never>?

    /// - Parameters:
    ///   - manager: the purchase manager.
    ///   - entitlement: the entitlement the subscription gives ("pro").
    ///   - language: the language of texts; the manager's by default.
    public init(manager: PurchaseManager, entitlement: String, language: TallyLanguage? = nil) {
        self.manager = manager
        self.entitlement = entitlement
        self.language = language ?? manager.configuration.language
    }

    /// The badge's text.
    public var badgeTitle: String { LocalizedStrings.table(for: language)["profile.badge"] }
    /// What to show as the plan when there is none ("Free plan").
    public var freeTitle: String { LocalizedStrings.table(for: language)["profile.free"] }
    /// The manage link's text.
    public var manageTitle: String { LocalizedStrings.table(for: language)["profile.manage"] }

    /// Reads the plan, and from then on follows account changes (a purchase, a renewal, a refresh).
    /// - Parameter policy: how fresh the state must be; the cache first by default.
    public func update(policy: FetchPolicy = .cachedOrFetched) async {
        if let state = try? await manager.account(policy) { await show(state) }
        guard following == nil else { return }
        let updates = manager.accountUpdates()
        following = Task { [weak self] in
            for await state in updates {
                guard let self else { return }
                await self.show(state)
            }
        }
    }

    /// Stops following account changes.
    public func stop() {
        following?.cancel()
        following = nil
    }

    private func show(_ state: AccountState) async {
        let granting = state.snapshot.entitlements.filter { $0.id == entitlement }
        // The active one first, then the one that lasted longest.
        guard
            let current = granting.max(by: { lhs, rhs in
                (lhs.active ? 1 : 0, lhs.expiresAt ?? .distantFuture) < (rhs.active ? 1 : 0, rhs.expiresAt ?? .distantFuture)
            })
        else {
            self.state.plan = nil
            self.state.isPro = false
            onChange?(self)
            return
        }
        let active = state.isActive(entitlement)
        let status: Status
        if active, current.inGracePeriod, let until = current.expiresAt {
            status = .paymentProblem(accessUntil: until)
        } else if active, let date = current.expiresAt {
            status = current.willRenew == false ? .ends(on: date) : .renews(on: date)
        } else if active {
            status = .lifetime
        } else {
            status = .expired(on: current.expiresAt)
        }
        let details = (try? await manager.products())?.first { $0.id == current.productID }
        let grant = (try? await manager.catalog(language: language))?.first { $0.id == current.productID }
        self.state.plan = Plan(
            productID: current.productID, title: details?.displayName ?? grant?.paywall.title ?? current.productID,
            displayPrice: details?.displayPrice,
            billingText: details.flatMap { details in
                details.subscription.map { LocalizedStrings.table(for: language).pricePerPeriod(details.displayPrice, $0.period) }
            },
            status: status, statusText: Self.text(status, language: language))
        self.state.isPro = active
        onChange?(self)
    }

    /// A status in words, dates in the language's long style.
    static func text(_ status: Status, language: TallyLanguage) -> String {
        let strings = LocalizedStrings.table(for: language)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == .ukrainian ? "uk_UA" : "en_US")
        formatter.dateStyle = .long
        formatter.timeStyle = .none
        switch status {
        case .renews(let date): return strings["profile.renews"].replacingOccurrences(of: "%@", with: formatter.string(from: date))
        case .ends(let date): return strings["profile.ends"].replacingOccurrences(of: "%@", with: formatter.string(from: date))
        case .paymentProblem(let date):
            return strings["profile.payment_problem"].replacingOccurrences(of: "%@", with: formatter.string(from: date))
        case .expired(let date?): return strings["profile.expired"].replacingOccurrences(of: "%@", with: formatter.string(from: date))
        case .expired(nil): return strings["profile.expired.undated"]
        case .lifetime: return strings["profile.lifetime"]
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension SubscriptionProfileModel: Observable {}

#if canImport(Combine)
extension SubscriptionProfileModel: ObservableObject {}
#endif
