import Foundation
import TallyCore
public import TallyKit
public import TallyTesting

/// A ``TallyKit/Store`` over TallyTesting's `SimulatedAppStore`: real signed transactions,
/// subscriptions on a controllable clock, Ask to Buy, refunds, on Linux and in tests.
///
/// ```swift
/// let appStore = try SimulatedAppStore(configuration: …, authority: authority, time: .manual(start: start))
/// let store = SimulatedStoreKit(appStore, locale: "uk_UA")
/// await store.nextPurchase(.userCancelled)        // what the customer does with the next sheet
/// ```
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public actor SimulatedStoreKit: Store {
    /// The simulated App Store behind it.
    public nonisolated let appStore: SimulatedAppStore
    /// The locale of names, descriptions and prices.
    public nonisolated let locale: String
    private var outcomes: [SimulatedAppStore.Outcome] = []
    private var reachable = true
    private var subscribers: [UUID: AsyncStream<StoreTransaction>.Continuation] = [:]

    /// - Parameters:
    ///   - appStore: the simulated App Store.
    ///   - locale: the customer's locale (`en_US`, `uk_UA`).
    public init(_ appStore: SimulatedAppStore, locale: String = "en_US") {
        self.appStore = appStore
        self.locale = locale
    }

    /// What the customer (or the store) does with the next payment sheets, in order; after
    /// these, the store's settings decide.
    public func nextPurchase(_ outcome: SimulatedAppStore.Outcome...) {
        outcomes += outcome
    }

    /// Makes the store unreachable (every call fails with a network error) or reachable again.
    public func setReachable(_ reachable: Bool) {
        self.reachable = reachable
    }

    private func checkReachable() throws(TallyError) {
        guard reachable else { throw TallyError(.networkError, "the App Store cannot be reached (simulated)") }
    }

    public func products(for ids: [String]) async throws(TallyError) -> [ProductDetails] {
        try checkReachable()
        var result: [ProductDetails] = []
        for id in ids {
            guard let product = await appStore.product(id) else { continue }
            result.append(Self.details(product, locale: locale, currency: appStore.configuration.catalog.settings.currency))
        }
        return result
    }

    public func purchase(_ productID: String, options: StorePurchaseOptions) async throws(TallyError) -> StorePurchaseResult {
        try checkReachable()
        let outcome = outcomes.isEmpty ? SimulatedAppStore.Outcome.automatic : outcomes.removeFirst()
        let result: SimulatedAppStore.PurchaseResult
        do {
            result = try await appStore.purchase(
                productID,
                options: SimulatedAppStore.PurchaseOptions(
                    appAccountToken: options.appAccountToken, quantity: options.quantity,
                    promotionalOfferID: options.promotionalOffer?.offerID, outcome: outcome))
        } catch {
            throw Self.error(error)
        }
        switch result {
        case .success(let signed): return .success(try StoreTransaction(jws: signed.jws))
        case .userCancelled: return .userCancelled
        case .pending: return .pending
        }
    }

    public func transactionUpdates() async -> AsyncStream<StoreTransaction> {
        let source = await appStore.updates()
        let (stream, continuation) = AsyncStream<StoreTransaction>.makeStream()
        let id = UUID()
        subscribers[id] = continuation
        let task = Task {
            for await signed in source {
                if let transaction = try? StoreTransaction(jws: signed.jws) { continuation.yield(transaction) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            Task { await self.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    /// Sends a transaction again on every updates stream, as StoreKit re-delivers transactions
    /// that were not finished.
    /// - Throws: ``TallyKit/TallyError`` `invalid_request` for an unknown transaction.
    public func redeliver(transactionID: String) async throws(TallyError) {
        let signed: SimulatedAppStore.SignedTransaction
        do {
            signed = try await appStore.transaction(transactionID)
        } catch {
            throw Self.error(error)
        }
        let transaction = try StoreTransaction(jws: signed.jws)
        for continuation in subscribers.values { continuation.yield(transaction) }
    }

    public func unfinishedTransactions() async throws(TallyError) -> [StoreTransaction] {
        try checkReachable()
        do {
            return try await appStore.unfinishedTransactions().map { signed throws(TallyError) in try StoreTransaction(jws: signed.jws) }
        } catch let error as TallyError {
            throw error
        } catch {
            throw Self.error(error)
        }
    }

    public func currentEntitlements() async throws(TallyError) -> [StoreTransaction] {
        try checkReachable()
        do {
            return try await appStore.currentEntitlements().map { signed throws(TallyError) in try StoreTransaction(jws: signed.jws) }
        } catch let error as TallyError {
            throw error
        } catch {
            throw Self.error(error)
        }
    }

    /// Every transaction the simulated App Store keeps, oldest first; finished consumables are
    /// left out, as StoreKit's `Transaction.all` leaves them out.
    public func transactionHistory() async throws(TallyError) -> [StoreTransaction] {
        try checkReachable()
        do {
            return try await appStore.history().map { signed throws(TallyError) in try StoreTransaction(jws: signed.jws) }
        } catch let error as TallyError {
            throw error
        } catch {
            throw Self.error(error)
        }
    }

    public func finish(_ transaction: StoreTransaction) async throws(TallyError) {
        try checkReachable()
        do {
            try await appStore.finish(transactionID: transaction.id)
        } catch {
            throw Self.error(error)
        }
    }

    public func sync() async throws(TallyError) {
        try checkReachable()
    }

    // MARK: - Mapping

    static func error(_ error: any Error) -> TallyError {
        guard let error = error as? SimulatedAppStoreError else { return TallyError(.storageFailed, "\(error)") }
        let code: TallyError.Code =
            switch error.code {
            case .networkError: .networkError
            case .paymentDeclined: .paymentDeclined
            case .paymentNotAllowed: .paymentNotAllowed
            case .productUnavailable: .productNotFound
            case .invalidQuantity, .invalidOffer, .notFound, .invalidState: .invalidRequest
            default: .storageFailed
            }
        return TallyError(code, error.description)
    }

    static func details(_ product: StoreKitConfiguration.Product, locale: String, currency: String) -> ProductDetails {
        let localization = product.localization(for: locale)
        let kind: ProductKind =
            switch product.kind {
            case .consumable: .consumable
            case .nonConsumable: .nonConsumable
            case .nonRenewingSubscription: .nonRenewing
            default: .autoRenewable
            }
        let terms = product.subscription.map { info in
            let unit: SubscriptionTerms.Period.Unit =
                switch info.period.unit {
                case .day: .day
                case .week: .week
                case .month: .month
                default: .year
                }
            return SubscriptionTerms(period: .init(value: info.period.value, unit: unit), groupID: info.groupID)
        }
        return ProductDetails(
            id: product.id, kind: kind, displayName: localization?.displayName ?? product.referenceName,
            description: localization?.description ?? "", displayPrice: formatted(price: product.price, currency: currency, locale: locale),
            price: product.price, currencyCode: currency, subscription: terms)
    }

    /// The price as the store shows it in the customer's locale: "$4.99", "4,99 $".
    static func formatted(price: Int64, currency: String, locale: String) -> String {
        let amount = Decimal(price) / 1000
        return amount.formatted(.currency(code: currency).locale(Locale(identifier: locale)))
    }
}
