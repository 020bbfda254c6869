// StoreKit exists on Apple platforms only; on Linux this file is checked against stand-in
// declarations of the StoreKit API it uses (scripts/check_apple_sources.sh).
#if canImport(StoreKit)
public import Foundation
public import StoreKit
public import TallyCore
import TallyVerify

/// A ``Store`` over StoreKit 1 (`SKPaymentQueue`): the App Store on iOS 13 and 14, and on any
/// system where an app prefers it. ``AppStoreKit/automatic(productKinds:)`` picks it below iOS 15.
///
/// It maps StoreKit and decides nothing. A paid transaction is handed over with the app
/// receipt that lists it (`TransactionEvidence.receipt`): TallyKit verifies the
/// receipt itself (``OnDeviceLedger`` with a ``ReceiptVerifier``, or the Tally server). When
/// the receipt does not list a just-paid transaction yet, it is refreshed once
/// (`SKReceiptRefreshRequest`, which may ask the customer to sign in, so it is given minutes,
/// not the products request's timeout). A refresh follows only a purchase or a restore, never
/// a transaction StoreKit delivers by itself or one found unfinished at launch: such a
/// transaction stays in the queue until the receipt lists it. A restored transaction is listed
/// in the receipt, and handed over, under its original's identifier.
///
/// - The payment queue observer is added when the store is made: make it at launch, so that
///   transactions StoreKit delivers before the manager is ready are kept until it listens.
/// - Products are fetched with a timeout and retried; StoreKit 1 does not say what kind a
///   product is, so give the kinds of the products you sell (from your catalog); a product
///   with a subscription period is auto-renewable, any other defaults to consumable.
/// - One purchase is in flight per product: StoreKit 1 reports transactions by product, so a
///   second tap on the same product while paying is refused with `purchase_in_progress`.
/// - Ask to Buy (deferred) is `.pending`; the approved transaction arrives through
///   ``transactionUpdates()``.
/// - Restore refreshes the receipt, and only that (one possible sign-in, not two: the receipt
///   lists everything `restoreCompletedTransactions()` would deliver again); what the customer
///   owns is read from it. StoreKit 1 does not announce refunds: a refreshed receipt shows them
///   as cancelled, and a Tally server learns them from App Store notifications.
/// - ``finish(_:)`` is called by ``PurchaseManager`` only after delivery is durable. Failed
///   transactions carry nothing to deliver and are finished at once, as StoreKit requires.
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6.2, *)
public final class StoreKit1Store: NSObject, Store, SKPaymentTransactionObserver, @unchecked Sendable {
    private let queue: SKPaymentQueue
    private let productKinds: [String: ProductKind]
    private let now: @Sendable () -> Date
    /// How long one products request may take, in seconds.
    public let productRequestTimeout: TimeInterval
    /// How many times a products request is made before it fails.
    public let productRequestAttempts: Int

    // Everything below is guarded by `lock`: StoreKit calls the observer on its own thread.
    private let lock = NSLock()
    private let updates = StoreFeed<Update>()
    private let intents = StoreFeed<StorePurchaseIntent>()
    private var products: [String: SKProduct] = [:]
    private var purchases: [String: CheckedContinuation<Update?, Never>] = [:]
    private var requests: [ObjectIdentifier: RequestDelegate] = [:]

    /// Makes the store and adds it to the payment queue as its observer.
    /// - Parameters:
    ///   - productKinds: the kind of each product sold, by identifier.
    ///   - productRequestTimeout: how long one products request may take; 15 seconds by default.
    ///   - productRequestAttempts: how many times a products request is made; 3 by default.
    ///   - now: the device's time, to judge subscription expiries in the receipt.
    ///   - queue: the payment queue; the default one.
    public init(
        productKinds: [String: ProductKind] = [:], productRequestTimeout: TimeInterval = 15, productRequestAttempts: Int = 3,
        now: @escaping @Sendable () -> Date = { Date() }, queue: SKPaymentQueue = SKPaymentQueue.default()
    ) {
        self.queue = queue
        self.productKinds = productKinds
        self.productRequestTimeout = productRequestTimeout
        self.productRequestAttempts = max(1, productRequestAttempts)
        self.now = now
        super.init()
        queue.add(self)
    }

    deinit {
        queue.remove(self)
    }

    // MARK: - Store

    /// The products with these identifiers that the App Store sells; unknown ones are left out.
    /// - Throws: ``TallyError`` `network_error` when every attempt failed or timed out.
    public func products(for ids: [String]) async throws(TallyError) -> [ProductDetails] {
        let fetched = try await fetch(ids)
        let used = introductoryOffersTaken()
        return fetched.map { product in
            var details = details(product)
            if let group = product.subscriptionGroupIdentifier { details.subscription?.isEligibleForIntroductoryOffer = !used.contains(group) }
            return details
        }
    }

    /// The subscription groups the app receipt shows an introductory offer or free trial was
    /// taken in (StoreKit 1 has no eligibility call): groups of products this store has loaded.
    private func introductoryOffersTaken() -> Set<String> {
        guard let text = Self.receipt(), let receipt = ReceiptVerifier.unverifiedReceipt(base64: text) else { return [] }
        let groups = lock.withLock { products.mapValues { $0.subscriptionGroupIdentifier } }
        var used = Set<String>()
        for purchase in receipt.inAppPurchases where purchase.isTrialPeriod == true || purchase.isInIntroOfferPeriod == true {
            if let product = purchase.productID, let group = groups[product] ?? nil { used.insert(group) }
        }
        return used
    }

    /// Adds a payment to the queue and waits for StoreKit's answer.
    /// - Throws: ``TallyError`` `product_not_found`, `payment_not_allowed`, `purchase_in_progress`,
    ///   `payment_declined`, `network_error`, `invalid_request` for an offer StoreKit refused, and
    ///   `verification_failed` when no receipt lists the transaction even after a refresh.
    public func purchase(_ productID: String, options: StorePurchaseOptions) async throws(TallyError) -> StorePurchaseResult {
        guard SKPaymentQueue.canMakePayments() else {
            throw TallyError(.paymentNotAllowed, "this device does not allow payments")
        }
        guard let product = try await fetch([productID]).first else {
            throw TallyError(.productNotFound, "the App Store does not sell \(productID) in this storefront")
        }
        let payment = SKMutablePayment(product: product)
        payment.quantity = options.quantity
        // Only a UUID survives as the transaction's app account token.
        payment.applicationUsername = options.appAccountToken?.uuidString
        if let offer = options.promotionalOffer {
            payment.paymentDiscount = SKPaymentDiscount(
                identifier: offer.offerID, keyIdentifier: offer.keyID, nonce: offer.nonce,
                signature: offer.signature.base64EncodedString(), timestamp: NSNumber(value: offer.timestamp))
        }
        let queue = self.queue
        let answer: Update? = await withCheckedContinuation { continuation in
            let accepted = lock.withLock { () -> Bool in
                guard purchases[productID] == nil else { return false }
                purchases[productID] = continuation
                return true
            }
            guard accepted else {
                continuation.resume(returning: nil)
                return
            }
            queue.add(payment)
        }
        guard let answer else {
            throw TallyError(.purchaseInProgress, "a purchase of \(productID) is already in progress")
        }
        switch answer.outcome {
        case .paid(let id): return .success(try await storeTransaction(id, on: .purchase))
        case .deferred: return .pending
        case .cancelled: return .userCancelled
        case .failed(let error): throw error
        }
    }

    /// Transactions StoreKit delivers outside a purchase call: renewals, Ask to Buy approvals,
    /// restored and unfinished ones; those delivered before anyone listened come first.
    public func transactionUpdates() async -> AsyncStream<StoreTransaction> {
        let raw = updates.stream()
        let (stream, continuation) = AsyncStream<StoreTransaction>.makeStream()
        let listener = Task { [weak self] in
            for await update in raw {
                // A transaction no receipt lists is skipped: it stays in the queue and comes back.
                guard case .paid(let transactionID) = update.outcome, let self else { continue }
                if let mapped = try? await self.storeTransaction(transactionID, on: .transactionUpdate) { continuation.yield(mapped) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listener.cancel() }
        return stream
    }

    /// Products the customer tapped on the App Store (promoted in-app purchases), kept for the
    /// first listener when they arrive before it.
    public func purchaseIntents() async -> AsyncStream<StorePurchaseIntent> {
        intents.stream()
    }

    /// Paid transactions still in the payment queue, oldest first.
    public func unfinishedTransactions() async throws(TallyError) -> [StoreTransaction] {
        let paid = queue.transactions
            .filter { $0.transactionState == .purchased || $0.transactionState == .restored }
            .sorted { ($0.transactionDate ?? .distantPast) < ($1.transactionDate ?? .distantPast) }
            .compactMap(Self.receiptID)
        var result: [StoreTransaction] = []
        for transactionID in paid {
            if let mapped = try? await storeTransaction(transactionID, on: .unfinishedTransactions) { result.append(mapped) }
        }
        return result
    }

    /// What the app receipt shows the customer owns now; nothing when there is no receipt.
    public func currentEntitlements() async throws(TallyError) -> [StoreTransaction] {
        guard let receipt = Self.receipt() else { return [] }
        return try StoreTransaction.entitlements(inReceipt: receipt, at: now())
    }

    /// Every purchase the app receipt lists; nothing when there is no receipt.
    public func transactionHistory() async throws(TallyError) -> [StoreTransaction] {
        guard let receipt = Self.receipt() else { return [] }
        return try StoreTransaction.all(inReceipt: receipt)
    }

    /// Nothing: StoreKit 1 has no renewal info.
    public func subscriptionRenewals() async throws(TallyError) -> [String] { [] }

    /// Finishes the transaction in the payment queue (a restored one by its original's
    /// identifier, which is what the receipt lists); one no longer there was finished already.
    public func finish(_ transaction: StoreTransaction) async throws(TallyError) {
        for queued in queue.transactions where Self.receiptID(queued) == transaction.id {
            queue.finishTransaction(queued)
        }
    }

    /// Restore: the app receipt is issued again, listing every purchase the customer made
    /// (``currentEntitlements()`` and ``transactionHistory()`` read it). The system may ask the
    /// customer to sign in. Completed transactions are not restored as well: that would ask a
    /// second time, and deliver nothing the receipt does not list.
    /// - Throws: ``TallyError`` `restore_failed` when the receipt could not be refreshed (the
    ///   customer cancelled the sign-in, the App Store did not answer).
    public func sync() async throws(TallyError) {
        do {
            try await refreshReceipt(on: .restore)
        } catch {
            throw TallyError(.restoreFailed, "the app receipt could not be refreshed: \(error.reason)")
        }
    }

    // MARK: - SKPaymentTransactionObserver

    /// StoreKit's news of transactions: the answer to a purchase in flight, or an update.
    public func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions {
            guard let update = Update(transaction) else { continue }
            if case .failed = update.outcome {
                // Nothing to deliver; StoreKit keeps a failed transaction until it is finished.
                queue.finishTransaction(transaction)
            } else if case .cancelled = update.outcome {
                queue.finishTransaction(transaction)
            }
            let restored = transaction.transactionState == .restored
            let waiting = lock.withLock { () -> CheckedContinuation<Update?, Never>? in
                // Restored transactions never answer a purchase.
                restored ? nil : purchases.removeValue(forKey: update.productID)
            }
            if let waiting {
                waiting.resume(returning: update)
                continue
            }
            guard case .paid = update.outcome else { continue }
            updates.send(update)
        }
    }

    /// A promoted in-app purchase tapped on the App Store: not added to the queue here; the
    /// manager buys it through the usual pipeline (an order first, on a server), so it is
    /// handed over as a purchase intent.
    public func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        lock.withLock { products[product.productIdentifier] = product }
        return intents.promoted(product.productIdentifier)
    }

    /// The end of a `restoreCompletedTransactions()` the app made itself (``sync()`` does not):
    /// its transactions came through ``transactionUpdates()``.
    public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {}

    /// A `restoreCompletedTransactions()` the app made itself failed: nothing to do here.
    public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {}

    // MARK: - Receipts

    /// The app's own purchase: the app receipt. It is not refreshed here (this is asked at
    /// launch, where a sign-in sheet has no reason the customer can see); a restore fetches it.
    /// - Throws: ``TallyError`` `store_unavailable` when the device has no receipt.
    public func appTransaction() async throws(TallyError) -> TransactionEvidence {
        // ReceiptRefresh.isAllowed(.appPurchase) is false: no refresh here.
        guard let receipt = Self.receipt() else {
            throw TallyError(.storeUnavailable, "the device has no app receipt; a restore fetches it")
        }
        return .receipt(receipt)
    }

    /// The identifier the app receipt lists a queued transaction under: its own, or for a
    /// restored one (which StoreKit gives a new identifier) its original's.
    private static func receiptID(_ transaction: SKPaymentTransaction) -> String? {
        if transaction.transactionState == .restored, let original = transaction.original?.transactionIdentifier { return original }
        return transaction.transactionIdentifier
    }

    /// The app receipt, standard base64, or `nil` when the device has none.
    private static func receipt() -> String? {
        guard let url = Bundle.main.appStoreReceiptURL, let data = try? Data(contentsOf: url), !data.isEmpty else { return nil }
        return data.base64EncodedString()
    }

    /// The transaction with the receipt that lists it, refreshing the receipt once when it does
    /// not and the occasion allows (``ReceiptRefresh/isAllowed(_:)``).
    /// - Throws: ``TallyError`` `verification_failed` when no receipt lists it (then it stays
    ///   unfinished in the queue and is taken up again).
    private func storeTransaction(_ id: String, on occasion: ReceiptRefresh.Occasion) async throws(TallyError) -> StoreTransaction {
        if let receipt = Self.receipt(), let found = try? StoreTransaction(receipt: receipt, transactionID: id) { return found }
        try await refreshReceipt(on: occasion)
        guard let receipt = Self.receipt() else {
            throw TallyError(.verificationFailed, "the device has no app receipt after a refresh")
        }
        return try StoreTransaction(receipt: receipt, transactionID: id)
    }

    /// Refreshes the app receipt, waiting ``ReceiptRefresh/timeout`` for the customer to sign in.
    /// - Throws: ``TallyError`` `verification_failed` when the occasion allows no refresh; the
    ///   refresh's failure otherwise.
    private func refreshReceipt(on occasion: ReceiptRefresh.Occasion) async throws(TallyError) {
        guard ReceiptRefresh.isAllowed(occasion) else {
            throw TallyError(.verificationFailed, "the app receipt is not refreshed without a purchase or a restore")
        }
        let request = SKReceiptRefreshRequest(receiptProperties: nil)
        if let failure = await run(request, timeout: ReceiptRefresh.timeout) { throw Self.error(failure) }
    }

    // MARK: - Requests

    /// Fetches products, retrying failures and timeouts with a growing pause.
    private func fetch(_ ids: [String]) async throws(TallyError) -> [SKProduct] {
        let cached = lock.withLock { ids.compactMap { products[$0] } }
        if cached.count == ids.count { return cached }
        var lastError: (any Error)?
        for attempt in 0..<productRequestAttempts {
            if attempt > 0 { try? await Task.sleep(nanoseconds: UInt64(attempt) * 1_000_000_000) }
            let request = SKProductsRequest(productIdentifiers: Set(ids))
            let delegate = RequestDelegate()
            if let failure = await run(request, delegate: delegate, timeout: productRequestTimeout) {
                lastError = failure
                continue
            }
            let found = delegate.products
            lock.withLock { for product in found { products[product.productIdentifier] = product } }
            return found
        }
        throw Self.error(lastError, otherwise: .networkError)
    }

    /// Starts a request and waits for its end, or for `timeout` seconds (then it is cancelled).
    /// - Returns: the failure, or `nil` when it finished.
    private func run(_ request: SKRequest, delegate: RequestDelegate = RequestDelegate(), timeout: TimeInterval) async -> (any Error)? {
        // StoreKit holds its delegate weakly: the store keeps it until the request ends.
        let key = ObjectIdentifier(delegate)
        lock.withLock { requests[key] = delegate }
        defer { lock.withLock { _ = requests.removeValue(forKey: key) } }
        return await withCheckedContinuation { continuation in
            delegate.begin(continuation, request: request)
            if let products = request as? SKProductsRequest { products.delegate = delegate } else { request.delegate = delegate }
            request.start()
            Task {
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                delegate.timeOut(after: timeout)
            }
        }
    }

    // MARK: - Mapping

    /// What StoreKit said of a transaction, in Sendable values.
    private struct Update: Sendable {
        enum Outcome: Sendable {
            case paid(transactionID: String)
            case deferred
            case cancelled
            case failed(TallyError)
        }

        let productID: String
        let outcome: Outcome

        /// `nil` for a transaction still being paid, or a paid one without an identifier.
        init?(_ transaction: SKPaymentTransaction) {
            productID = transaction.payment.productIdentifier
            switch transaction.transactionState {
            case .purchased, .restored:
                guard let id = StoreKit1Store.receiptID(transaction) else { return nil }
                outcome = .paid(transactionID: id)
            case .deferred:
                outcome = .deferred
            case .failed:
                if let error = transaction.error as? SKError, error.code == .paymentCancelled {
                    outcome = .cancelled
                } else {
                    outcome = .failed(StoreKit1Store.error(transaction.error))
                }
            default:
                return nil
            }
        }
    }

    private func details(_ product: SKProduct) -> ProductDetails {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = product.priceLocale
        let kind = productKinds[product.productIdentifier] ?? (product.subscriptionPeriod != nil ? .autoRenewable : .consumable)
        let terms = product.subscriptionPeriod.map { period in
            SubscriptionTerms(
                period: Self.period(period), groupID: product.subscriptionGroupIdentifier ?? "",
                introductoryOffer: product.introductoryPrice.map { offer in
                    let mode: SubscriptionTerms.IntroductoryOffer.PaymentMode =
                        switch offer.paymentMode {
                        case .freeTrial: .freeTrial
                        case .payUpFront: .payUpFront
                        default: .payAsYouGo
                        }
                    formatter.locale = offer.priceLocale
                    return SubscriptionTerms.IntroductoryOffer(
                        paymentMode: mode, period: Self.period(offer.subscriptionPeriod), periodCount: offer.numberOfPeriods,
                        displayPrice: formatter.string(from: offer.price) ?? offer.price.stringValue)
                })
        }
        return ProductDetails(
            id: product.productIdentifier, kind: kind, displayName: product.localizedTitle, description: product.localizedDescription,
            displayPrice: formatter.string(from: product.price) ?? product.price.stringValue,
            price: ProductDetails.thousandths(product.price.decimalValue), currencyCode: product.priceLocale.currencyCode ?? "",
            subscription: terms)
    }

    static func period(_ period: SKProductSubscriptionPeriod) -> SubscriptionTerms.Period {
        let unit: SubscriptionTerms.Period.Unit =
            switch period.unit {
            case .day: .day
            case .week: .week
            case .month: .month
            default: .year
            }
        return SubscriptionTerms.Period(value: period.numberOfUnits, unit: unit)
    }

    /// StoreKit 1's errors as ``TallyError`` codes.
    static func error(_ error: (any Error)?, otherwise: TallyError.Code = .storeUnavailable) -> TallyError {
        guard let error else { return TallyError(otherwise, "StoreKit failed without saying why") }
        if let error = error as? TallyError { return error }
        let code: TallyError.Code
        if let error = error as? SKError {
            switch error.code {
            case .paymentNotAllowed, .cloudServicePermissionDenied: code = .paymentNotAllowed
            case .storeProductNotAvailable: code = .productNotFound
            case .cloudServiceNetworkConnectionFailed: code = .networkError
            case .ineligibleForOffer: code = .offerNotEligible
            case .invalidOfferIdentifier, .invalidSignature, .missingOfferParams, .invalidOfferPrice, .paymentInvalid: code = .invalidRequest
            // Unknown and system errors are not the customer's card being declined.
            case .unknown, .clientInvalid: code = .storeUnavailable
            default: code = otherwise
            }
        } else if error is URLError {
            code = .networkError
        } else {
            code = otherwise
        }
        return TallyError(code, "StoreKit: \(error)")
    }
}

/// Waits for one StoreKit request: the products it found, and its end.
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6.2, *)
private final class RequestDelegate: NSObject, SKProductsRequestDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<(any Error)?, Never>?
    private var found: [SKProduct] = []
    private var request: SKRequest?

    var products: [SKProduct] { lock.withLock { found } }

    func begin(_ continuation: CheckedContinuation<(any Error)?, Never>, request: SKRequest) {
        lock.withLock {
            self.continuation = continuation
            self.request = request
        }
    }

    /// Ends a wait that lasted too long, and cancels its request.
    func timeOut(after seconds: TimeInterval) {
        let pending = lock.withLock { request }
        if end(with: TallyError(.networkError, "the App Store did not answer in \(Int(seconds)) seconds")) { pending?.cancel() }
    }

    /// Ends the wait once; `true` when this call ended it.
    @discardableResult
    func end(with error: (any Error)?) -> Bool {
        let waiting = lock.withLock { () -> CheckedContinuation<(any Error)?, Never>? in
            defer {
                continuation = nil
                request = nil
            }
            return continuation
        }
        waiting?.resume(returning: error)
        return waiting != nil
    }

    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        lock.withLock { found = response.products }
    }

    func requestDidFinish(_ request: SKRequest) {
        end(with: nil)
    }

    func request(_ request: SKRequest, didFailWithError error: any Error) {
        end(with: error)
    }
}
#endif
