import Foundation
public import TallyCore

extension PurchaseManager {
    /// The products the app sells, as the store describes them (localized names and prices).
    /// - Throws: ``TallyError`` `product_not_found` when the store knows none of them.
    public func products() async throws(TallyError) -> [ProductDetails] {
        let missing = configuration.productIDs.filter { productDetails[$0] == nil }
        if !missing.isEmpty {
            for product in try await store.products(for: missing) { productDetails[product.id] = product }
        }
        let found = configuration.productIDs.compactMap { productDetails[$0] }
        guard !found.isEmpty else { throw TallyError(.productNotFound, "the store has none of \(configuration.productIDs)") }
        return found
    }

    /// What each product grants and unlocks, with paywall texts in `language`.
    /// - Parameter language: the language of the texts; the configured one by default.
    public func catalog(language: TallyLanguage? = nil) async throws(TallyError) -> [ProductGrant] {
        let language = language ?? configuration.language
        if let cached = grants[language] { return cached }
        let loaded = try await delivery.catalog(language: language)
        grants[language] = loaded
        return loaded
    }

    /// Buys a product: prepares it (a server order), shows the payment sheet, then journals,
    /// delivers and finishes the transaction.
    ///
    /// - Parameters:
    ///   - productID: the product.
    ///   - quantity: units of a consumable, 1 to 10.
    ///   - promotionalOffer: a signed promotional offer of a subscription.
    ///   - winBackOfferID: a win-back offer of a subscription (StoreKit 2, iOS 18 and later).
    ///   - scene: the scene to show the payment sheet in (iOS and tvOS 17, visionOS): give it when
    ///     the app has several windows; without it StoreKit chooses (``PurchaseScene``).
    /// - Returns: `.purchased` with what was credited, `.cancelled`, `.pending` (waiting for
    ///   approval), or `.deliveryPending` when it was paid but its credit could not be delivered
    ///   yet (it is retried in the background and at every start).
    /// - Throws: ``TallyError``: `purchase_in_progress` while this product's purchase is under
    ///   way, `network_unavailable` offline (nothing is started), `unused_credit_exists` when
    ///   configured so, store failures (`payment_declined`, `product_not_found`, …), and a
    ///   paid transaction the destination refuses for good (`verification_failed`,
    ///   `transaction_belongs_to_another_user`).
    @discardableResult
    public func purchase(
        _ productID: String, quantity: Int = 1, promotionalOffer: PromotionalOffer? = nil, winBackOfferID: String? = nil,
        confirmIn scene: PurchaseScene? = nil
    ) async throws(TallyError) -> PurchaseOutcome {
        guard started else { throw TallyError(.notStarted, "call start() before purchase()") }
        guard (1...10).contains(quantity) else { throw TallyError(.invalidRequest, "quantity must be 1 to 10, not \(quantity)") }
        guard !purchasesInFlight.contains(productID) else {
            throw TallyError(.purchaseInProgress, "a purchase of \(productID) is under way")
        }
        purchasesInFlight.insert(productID)
        defer { purchasesInFlight.remove(productID) }

        guard await connectivity.isOnline() else {
            throw TallyError(.networkUnavailable, "the device is offline; the purchase was not started")
        }
        if productDetails[productID] == nil { _ = await logFailure(.loadProducts) { () async throws(TallyError) in try await products() } }
        if configuration.blocksPurchaseWhileCreditUnused {
            try await refuseWhileUnused(productID)
        }

        await record(.started, productID: productID)
        let ticket: PurchaseTicket
        do throws(TallyError) {
            ticket = try await delivery.prepare(productID: productID)
        } catch {
            await record(.failed, productID: productID, error: error)
            throw error
        }
        let intentID = try await journal.recordIntent(ticket, now: now())

        let result: StorePurchaseResult
        do throws(TallyError) {
            result = try await store.purchase(
                productID,
                options: StorePurchaseOptions(
                    appAccountToken: ticket.appAccountToken, quantity: quantity, promotionalOffer: promotionalOffer,
                    winBackOfferID: winBackOfferID, scene: scene))
        } catch {
            await close(intentID, ticket: ticket, reason: error.code.rawValue)
            await record(.failed, productID: productID, error: error)
            throw error
        }

        switch result {
        case .userCancelled:
            await close(intentID, ticket: ticket, reason: "cancelled")
            await record(.cancelled, productID: productID)
            return .cancelled
        case .pending:
            _ = await logFailure(.recordIntent) { () async throws(TallyError) in try await journal.setIntent(intentID, state: "pending", now: now()) }
            await record(.pending, productID: productID)
            return .pending
        case .success(let transaction):
            await checkpoint(.paid, transaction.id)
            // A subscription bought ends the group's introductory offer: its products are described again.
            if let group = productDetails[productID]?.subscription?.groupID {
                productDetails = productDetails.filter { $0.value.subscription?.groupID != group }
            }
            _ = await logFailure(.recordIntent) { () async throws(TallyError) in
                try await journal.setIntent(intentID, state: "paid", transactionID: transaction.id, now: now())
            }
            switch await deliverOrSchedule(transaction, orderID: ticket.orderID, matchIntent: false, attempts: configuration.attemptsDuringPurchase) {
            case .success(let receipt):
                return .purchased(receipt)
            case .failure(let error) where error.isTransient:
                // Paid: not an error of the purchase. Buying again would charge again.
                return .deliveryPending(transactionID: transaction.id)
            case .failure(let error):
                await record(.failed, productID: productID, transactionID: transaction.id, error: error)
                throw error
            }
        }
    }

    /// Delivers again every paid transaction not delivered yet, refused ones included (a
    /// verification that failed for a reason since fixed, say): what "Try Again" does after a
    /// payment. It never shows a payment sheet.
    /// - Returns: the receipts of those delivered now.
    /// - Throws: ``TallyError``: the first failure, when nothing could be delivered.
    @discardableResult
    public func retryUndelivered() async throws(TallyError) -> [DeliveryReceipt] {
        var receipts: [DeliveryReceipt] = []
        var failure: TallyError?
        for entry in try await journal.unfinished() {
            switch await deliverOrSchedule(entry.transaction, orderID: entry.orderID, attempts: configuration.attemptsDuringPurchase) {
            case .success(let receipt): receipts.append(receipt)
            case .failure(let error): failure = failure ?? error
            }
        }
        if let failure, receipts.isEmpty { throw failure }
        return receipts
    }

    /// An order whose payment did not happen is closed, not left dangling.
    private func close(_ intentID: String, ticket: PurchaseTicket, reason: String) async {
        _ = await logFailure(.recordIntent) { () async throws(TallyError) in try await journal.setIntent(intentID, state: "abandoned", now: now()) }
        _ = await logFailure(.closeOrder) { () async throws(TallyError) in try await delivery.abandon(ticket, reason: reason) }
    }

    private func refuseWhileUnused(_ productID: String) async throws(TallyError) {
        guard let product = try await catalog().first(where: { $0.id == productID }), !product.grants.isEmpty else { return }
        let state = try await account(.notStaleCachedOrFetched)
        for grant in product.grants {
            let balance = state.balance(grant.currency)
            if balance.available + balance.held > 0 {
                throw TallyError(
                    .unusedCreditExists, "\(balance.available) \(grant.currency) unused", currency: grant.currency,
                    available: balance.available)
            }
        }
    }

    /// Restores purchases: asks the store to sync, delivers every unfinished transaction and
    /// every current entitlement (non-consumables and subscriptions), and refreshes the account
    /// with the latest transaction of each kept product in the store's history, so that a
    /// subscription that lapsed before a reinstall is known (``destination(for:policy:)`` then
    /// says paywall, not onboarding).
    ///
    /// Consumables already used are not restored: the store no longer lists them, and none is
    /// ever taken from the history.
    /// - Returns: the receipts and the account state afterwards.
    /// - Throws: ``TallyError`` `restore_failed` when the store cannot sync or nothing could be delivered.
    @discardableResult
    public func restore() async throws(TallyError) -> RestoreResult {
        guard started else { throw TallyError(.notStarted, "call start() before restore()") }
        guard await connectivity.isOnline() else { throw TallyError(.restoreFailed, "the device is offline") }
        let transactions: [StoreTransaction]
        do throws(TallyError) {
            try await store.sync()
            transactions = try await store.unfinishedTransactions() + store.currentEntitlements()
        } catch {
            configuration.log.log(.restoreFailed(code: error.code.rawValue, reason: "the store could not restore: \(error.reason)"))
            throw TallyError(.restoreFailed, "the store could not restore: \(error.reason)")
        }
        var receipts: [DeliveryReceipt] = []
        var failures: [TallyError] = []
        var seen = Set<String>()
        for transaction in transactions where seen.insert(PurchaseJournal.eventID(transaction)).inserted {
            switch await deliverOrSchedule(transaction, attempts: configuration.attemptsDuringPurchase) {
            case .success(let receipt):
                receipts.append(receipt)
                await record(.restored, productID: transaction.productID, transactionID: transaction.id)
            case .failure(let error):
                failures.append(error)
            }
        }
        if let failure = failures.first, receipts.isEmpty {
            configuration.log.log(.restoreFailed(code: failure.code.rawValue, reason: "no purchase could be restored: \(failure)"))
            throw TallyError(.restoreFailed, "no purchase could be restored: \(failure)")
        }
        configuration.log.log(.restored(delivered: receipts.count, failed: failures.count))
        let kept = await keptPurchasesFromHistory()
        let account: AccountState
        do throws(TallyError) {
            account = try await refresh(including: kept)
        } catch {
            account = try await self.account(.fromCacheOnly)
        }
        return RestoreResult(receipts: receipts, account: account)
    }
}

// MARK: - Purchases started on the App Store

extension PurchaseManager {
    /// Purchases the customer started on the App Store (a promoted product, a win-back offer),
    /// from now on. With ``Configuration/completesPurchaseIntents`` (the default) the manager
    /// buys each one at once and this stream only tells; otherwise the app buys when ready.
    public func purchaseIntents() -> AsyncStream<StorePurchaseIntent> {
        let (stream, continuation) = AsyncStream<StorePurchaseIntent>.makeStream()
        let id = UUID()
        intentSubscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeIntentSubscriber(id) } }
        return stream
    }

    private func removeIntentSubscriber(_ id: UUID) {
        intentSubscribers[id] = nil
    }

    /// One purchase started on the App Store: told to listeners and, when configured, bought
    /// through the same pipeline as a tap in the app (order, journal, delivery, finish).
    func handle(_ intent: StorePurchaseIntent) async {
        for subscriber in intentSubscribers.values { subscriber.yield(intent) }
        guard configuration.completesPurchaseIntents else { return }
        // Errors are recorded in analytics by purchase(); a failure leaves nothing to undo.
        _ = await logFailure(.completeIntent) { () async throws(TallyError) in
            try await purchase(intent.productID, winBackOfferID: intent.winBackOfferID)
        }
    }
}
