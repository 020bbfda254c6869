public import Foundation
public import TallyCore
public import TallyKit
public import TallyTesting
public import TallyVerify

/// A ``TallyKit/Store`` over TallyTesting's `SimulatedAppStore`: real signed transactions,
/// subscriptions on a controllable clock, Ask to Buy, refunds, on Linux and in tests.
///
/// ```swift
/// let appStore = try SimulatedAppStore(configuration: …, authority: authority, time: .manual(start: start))
/// let store = SimulatedStoreKit(appStore, locale: "uk_UA")
/// await store.nextPurchase(.userCancelled)        // what the customer does with the next sheet
/// ```
///
/// With ``API/storeKit1(device:)`` it behaves as StoreKit 1 on that device: purchases carry
/// the device's app receipt instead of a JWS (a transaction the receipt does not list yet gets
/// the receipt refreshed, as `SKReceiptRefreshRequest`, but only after a purchase or a restore,
/// as `StoreKit1Store` does: ``receiptRefreshes`` counts them), what the customer owns and has
/// bought is read from the receipt, refunds are not announced (StoreKit 1 has no such
/// callback; a refreshed receipt shows them), and a restore refreshes the receipt.
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public actor SimulatedStoreKit: Store {
    /// The simulated App Store behind it.
    public nonisolated let appStore: SimulatedAppStore
    /// Under StoreKit 1, how many times the app receipt was refreshed (`SKReceiptRefreshRequest`):
    /// each may ask the customer to sign in with their Apple ID.
    public private(set) var receiptRefreshes = 0
    /// The locale of names, descriptions and prices.
    public nonisolated let locale: String
    private var outcomes: [SimulatedAppStore.Outcome] = []
    private var reachable = true
    private var subscribers: [UUID: AsyncStream<StoreTransaction>.Continuation] = [:]
    private nonisolated let intents = StoreFeed<StorePurchaseIntent>()
    /// Which StoreKit it behaves as.
    public nonisolated let api: API
    /// The time that StoreKit 1 judges subscription expiries in the receipt at.
    private nonisolated let deviceTime: (@Sendable () -> Date)?
    /// The device's `AppStore.deviceVerificationID`: StoreKit 2's JWS are bound to it.
    public nonisolated let deviceVerificationID: UUID?

    /// The StoreKit an app uses.
    public enum API: Sendable, Hashable {
        /// StoreKit 2: a JWS per transaction (iOS 15 and later).
        case storeKit2
        /// StoreKit 1 on a device: the app receipt proves transactions.
        case storeKit1(device: DeviceIdentifier)
    }

    /// - Parameters:
    ///   - appStore: the simulated App Store.
    ///   - locale: the customer's locale (`en_US`, `uk_UA`).
    ///   - api: StoreKit 2 (the default) or StoreKit 1 on a device.
    ///   - now: the device's time, for expiries read from a receipt; the simulated store's by default.
    ///   - deviceVerificationID: the device's `AppStore.deviceVerificationID`: with one, each
    ///     StoreKit 2 transaction and renewal info is handed out bound to it (`deviceVerification`),
    ///     as StoreKit does; without one, as signed by the store.
    public init(
        _ appStore: SimulatedAppStore, locale: String = "en_US", api: API = .storeKit2, now: (@Sendable () -> Date)? = nil,
        deviceVerificationID: UUID? = nil
    ) {
        self.appStore = appStore
        self.locale = locale
        self.api = api
        self.deviceTime = now
        self.deviceVerificationID = deviceVerificationID
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
            var details = Self.details(product, locale: locale, currency: appStore.configuration.catalog.settings.currency)
            if let group = details.subscription?.groupID {
                details.subscription?.isEligibleForIntroductoryOffer = await appStore.isEligibleForIntroductoryOffer(groupID: group)
            }
            result.append(details)
        }
        return result
    }

    public func purchase(_ productID: String, options: StorePurchaseOptions) async throws(TallyError) -> StorePurchaseResult {
        try checkReachable()
        let outcome = outcomes.isEmpty ? SimulatedAppStore.Outcome.automatic : outcomes.removeFirst()
        let result: SimulatedAppStore.PurchaseResult
        do {
            result = try await buy(productID, options: options, outcome: outcome)
        } catch {
            throw Self.error(error)
        }
        switch result {
        case .success(let signed): return .success(try await transaction(signed, on: .purchase))
        case .userCancelled: return .userCancelled
        case .pending: return .pending
        }
    }

    private func buy(_ productID: String, options: StorePurchaseOptions, outcome: SimulatedAppStore.Outcome) async throws -> SimulatedAppStore.PurchaseResult {
        switch api {
        case .storeKit2:
            return try await appStore.purchase(
                productID,
                options: SimulatedAppStore.PurchaseOptions(
                    appAccountToken: options.appAccountToken, quantity: options.quantity,
                    promotionalOfferID: options.promotionalOffer?.offerID, outcome: outcome))
        case .storeKit1(let device):
            // StoreKit 1 carries the app account token as `applicationUsername`.
            let payment = SimulatedAppStore.StoreKit1Payment(
                productID: productID, quantity: options.quantity, applicationUsername: options.appAccountToken?.uuidString, outcome: outcome)
            return try await appStore.purchase(payment, on: device)
        }
    }

    /// The transaction as the app sees it: its JWS, or the device's app receipt that lists it,
    /// refreshed when it does not and the occasion allows (``TallyKit/ReceiptRefresh``); `nil`:
    /// a StoreKit 2 path, where no receipt is read.
    private func transaction(
        _ signed: SimulatedAppStore.SignedTransaction, on occasion: ReceiptRefresh.Occasion?
    ) async throws(TallyError) -> StoreTransaction {
        guard case .storeKit1(let device) = api else {
            guard let deviceVerificationID else { return try StoreTransaction(jws: signed.jws) }
            do {
                return try StoreTransaction(jws: try await appStore.transaction(signed, boundTo: deviceVerificationID).jws)
            } catch {
                throw Self.error(error)
            }
        }
        do {
            let receipt = try await appStore.appReceipt(for: device)
            if receipt.transactionIDs.contains(signed.transactionID) {
                return try StoreTransaction(receipt: receipt.base64, transactionID: signed.transactionID)
            }
            guard let occasion, ReceiptRefresh.isAllowed(occasion) else {
                throw TallyError(
                    .verificationFailed, "the app receipt does not list \(signed.transactionID) yet; it is not refreshed without a purchase or a restore")
            }
            receiptRefreshes += 1
            return try StoreTransaction(receipt: try await appStore.refreshAppReceipt(for: device).base64, transactionID: signed.transactionID)
        } catch let error as TallyError {
            throw error
        } catch {
            throw Self.error(error)
        }
    }

    private func deviceNow() async -> Date {
        if let deviceTime { return deviceTime() }
        return await appStore.now
    }

    /// The device's app receipt, standard base64.
    private func receipt(_ device: DeviceIdentifier) async throws(TallyError) -> String {
        do {
            return try await appStore.appReceipt(for: device).base64
        } catch {
            throw Self.error(error)
        }
    }

    public func transactionUpdates() async -> AsyncStream<StoreTransaction> {
        let source = await appStore.updates()
        let (stream, continuation) = AsyncStream<StoreTransaction>.makeStream()
        let id = UUID()
        subscribers[id] = continuation
        let task = Task {
            for await signed in source {
                // StoreKit 1's payment queue announces purchases and renewals, never refunds.
                if case .storeKit1 = self.api, signed.payload.revocationDate != nil { continue }
                if let transaction = try? await self.transaction(signed, on: .transactionUpdate) { continuation.yield(transaction) }
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

    public func purchaseIntents() async -> AsyncStream<StorePurchaseIntent> {
        intents.stream()
    }

    /// The customer taps a product promoted on the App Store (or a win-back offer there): the
    /// app is opened with a purchase intent; before anyone listens it is kept, as StoreKit does.
    /// The simulated store does not model win-back offers: their identifier is passed along only.
    /// - Throws: ``TallyKit/TallyError`` `product_not_found` for a product the store does not sell.
    public func promote(_ productID: String, winBackOfferID: String? = nil) async throws(TallyError) {
        guard await appStore.product(productID) != nil else {
            throw TallyError(.productNotFound, "the simulated App Store does not sell \(productID)")
        }
        intents.send(StorePurchaseIntent(productID: productID, winBackOfferID: winBackOfferID))
    }

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
        let transaction = try await transaction(signed, on: .transactionUpdate)
        for continuation in subscribers.values { continuation.yield(transaction) }
    }

    public func unfinishedTransactions() async throws(TallyError) -> [StoreTransaction] {
        try checkReachable()
        do {
            var result: [StoreTransaction] = []
            for signed in try await appStore.unfinishedTransactions() {
                if let mapped = try await unfinished(signed) { result.append(mapped) }
            }
            return result
        } catch let error as TallyError {
            throw error
        } catch {
            throw Self.error(error)
        }
    }

    /// An unfinished transaction as the app sees it; `nil`, as with `StoreKit1Store`, for one
    /// the receipt does not list yet: it stays in the queue.
    private func unfinished(_ signed: SimulatedAppStore.SignedTransaction) async throws(TallyError) -> StoreTransaction? {
        do {
            return try await transaction(signed, on: .unfinishedTransactions)
        } catch  where error.code == .verificationFailed {
            return nil
        }
    }

    public func currentEntitlements() async throws(TallyError) -> [StoreTransaction] {
        try checkReachable()
        do {
            if case .storeKit1(let device) = api { return try StoreTransaction.entitlements(inReceipt: try await receipt(device), at: await deviceNow()) }
            var result: [StoreTransaction] = []
            for signed in try await appStore.currentEntitlements() { result.append(try await transaction(signed, on: nil)) }
            return result
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
            if case .storeKit1(let device) = api { return try StoreTransaction.all(inReceipt: try await receipt(device)) }
            var result: [StoreTransaction] = []
            for signed in try await appStore.history() { result.append(try await transaction(signed, on: nil)) }
            return result
        } catch let error as TallyError {
            throw error
        } catch {
            throw Self.error(error)
        }
    }

    /// The renewal info of each subscription of the customer, signed now; none with StoreKit 1.
    public func subscriptionRenewals() async throws(TallyError) -> [String] {
        try checkReachable()
        guard case .storeKit2 = api else { return [] }
        do {
            return try await appStore.subscriptionStatuses(boundTo: deviceVerificationID).map(\.renewalInfo)
        } catch {
            throw Self.error(error)
        }
    }

    /// The app's own purchase: an `AppTransaction` bound to the phone under StoreKit 2, the app
    /// receipt under StoreKit 1.
    public func appTransaction() async throws(TallyError) -> TransactionEvidence {
        try checkReachable()
        if case .storeKit1(let device) = api { return .receipt(try await receipt(device)) }
        do {
            return .jws(try await appStore.appTransaction(boundTo: deviceVerificationID))
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

    /// Brings the device up to date: with StoreKit 1 the app receipt is issued again.
    public func sync() async throws(TallyError) {
        try checkReachable()
        guard case .storeKit1(let device) = api else { return }
        receiptRefreshes += 1
        do {
            try await appStore.refreshAppReceipt(for: device)
        } catch {
            throw Self.error(error)
        }
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
            let introductory = info.introductoryOffer.map { offer in
                let mode: SubscriptionTerms.IntroductoryOffer.PaymentMode =
                    switch offer.paymentMode {
                    case .freeTrial: .freeTrial
                    case .payUpFront: .payUpFront
                    default: .payAsYouGo
                    }
                return SubscriptionTerms.IntroductoryOffer(
                    paymentMode: mode, period: period(offer.period), periodCount: offer.numberOfPeriods,
                    displayPrice: formatted(price: offer.price, currency: currency, locale: locale))
            }
            return SubscriptionTerms(period: period(info.period), groupID: info.groupID, introductoryOffer: introductory)
        }
        return ProductDetails(
            id: product.id, kind: kind, displayName: localization?.displayName ?? product.referenceName,
            description: localization?.description ?? "", displayPrice: formatted(price: product.price, currency: currency, locale: locale),
            price: product.price, currencyCode: currency, subscription: terms)
    }

    static func period(_ period: SubscriptionPeriod) -> SubscriptionTerms.Period {
        let unit: SubscriptionTerms.Period.Unit =
            switch period.unit {
            case .day: .day
            case .week: .week
            case .month: .month
            default: .year
            }
        return SubscriptionTerms.Period(value: period.value, unit: unit)
    }

    /// The price as the store shows it in the customer's locale: "$4.99", "4,99 $".
    static func formatted(price: Int64, currency: String, locale: String) -> String {
        let amount = Decimal(price) / 1000
        return amount.formatted(.currency(code: currency).locale(Locale(identifier: locale)))
    }
}
