import Foundation
import TallyCore

/// Journal → deliver → record → finish, once per transaction, with retries.
extension PurchaseManager {
    /// Delivers a transaction, trying up to `attempts` times here (waiting between tries) and
    /// leaving a transient failure to a background retry.
    /// - Parameter matchIntent: whether a transaction without a known order is matched to a
    ///   prepared purchase; not for the purchase call's own transaction, whose intent it settled.
    func deliverOrSchedule(
        _ transaction: StoreTransaction, orderID: String? = nil, matchIntent: Bool = true, attempts: Int
    ) async -> Result<DeliveryReceipt, TallyError> {
        var attempt = 1
        while true {
            let result = await process(transaction, orderID: orderID, matchIntent: matchIntent)
            guard case .failure(let error) = result, error.isTransient else { return result }
            let known = await logFailure(.readJournal) { () async throws(TallyError) in try await journal.entry(PurchaseJournal.eventID(transaction)) }
            let failures = known??.attempts ?? attempt
            if attempt >= max(1, attempts) || !started {
                scheduleRetry(PurchaseJournal.eventID(transaction), failures: failures, minimum: error.retryAfter ?? 0)
                return result
            }
            let delay = configuration.retry.delay(afterFailures: failures, atLeast: error.retryAfter ?? 0, using: &random)
            do { try await sleep(delay) } catch { return result }
            attempt += 1
        }
    }

    /// One delivery of one transaction; concurrent calls for the same transaction share it.
    func process(_ transaction: StoreTransaction, orderID: String?, matchIntent: Bool = true) async -> Result<DeliveryReceipt, TallyError> {
        let eventID = PurchaseJournal.eventID(transaction)
        if let running = deliveries[eventID] { return await running.value }
        let task = Task { await self.run(transaction, orderID: orderID, matchIntent: matchIntent) }
        deliveries[eventID] = task
        let result = await task.value
        deliveries[eventID] = nil
        return result
    }

    private func run(_ transaction: StoreTransaction, orderID: String?, matchIntent: Bool) async -> Result<DeliveryReceipt, TallyError> {
        let eventID = PurchaseJournal.eventID(transaction)
        do throws(TallyError) {
            // The purchase call knows its order; a transaction seen before keeps the order it was
            // journaled with. Only one that arrives by itself (Ask to Buy approved, say) is matched
            // to a prepared purchase, and a wrong match costs nothing: see `deliverOrder` below.
            let known = try await journal.entry(eventID)
            let intent = !matchIntent || transaction.isRevoked || orderID != nil || known != nil ? nil : try await journal.intent(paidBy: transaction)
            let entry = try await journal.record(transaction, orderID: orderID ?? intent?.ticket.orderID, now: now())
            await checkpoint(.journaled, transaction.id)
            if let intent {
                try await journal.setIntent(intent.id, state: "paid", transactionID: transaction.id, now: now())
            }

            var receipt: DeliveryReceipt
            var deliveredNow = false
            if let recorded = entry.receipt, entry.state == .delivered || entry.state == .finished {
                receipt = recorded
            } else {
                do throws(TallyError) {
                    receipt = try await deliverOrder(transaction, orderID: entry.orderID)
                    applyAccount(.snapshot(AccountSnapshot(balances: receipt.balances, entitlements: receipt.entitlements)))
                } catch {
                    logRefusal(error, of: transaction)
                    _ = await logFailure(.recordFailure) { () async throws(TallyError) in
                        try await journal.markFailed(eventID, error: error, rejected: !error.isTransient, now: now())
                    }
                    return .failure(error)
                }
                await checkpoint(.delivered, transaction.id)
                try await journal.markDelivered(eventID, receipt: receipt, now: now())
                await checkpoint(.recorded, transaction.id)
                deliveredNow = true
            }

            if entry.state != .finished {
                do throws(TallyError) {
                    try await store.finish(transaction)
                    await checkpoint(.finished, transaction.id)
                    try await journal.markFinished(eventID, now: now())
                    configuration.log.log(.finished(transactionID: transaction.id, productID: transaction.productID))
                } catch {
                    // The credit is durable; finishing is tried again at the next start.
                    configuration.log.log(.operationFailed(.finish, code: error.code.rawValue, reason: "transaction \(transaction.id): \(error.reason)"))
                }
            }
            await delivered(receipt, transaction: transaction, firstTime: deliveredNow && !receipt.replayed)
            return .success(receipt)
        } catch {
            return .failure(error)
        }
    }

    /// Delivers with the transaction's order; when the destination says the order does not
    /// fit (paid by another transaction, closed, not this product), delivers it without one:
    /// a paid transaction is never refused over order bookkeeping.
    private func deliverOrder(_ transaction: StoreTransaction, orderID: String?) async throws(TallyError) -> DeliveryReceipt {
        let ticket = PurchaseTicket(productID: transaction.productID, orderID: orderID, appAccountToken: transaction.appAccountToken)
        do throws(TallyError) {
            return try await delivery.deliver(transaction, ticket: ticket)
        } catch  where error.code == .orderFailed && orderID != nil {
            let unordered = PurchaseTicket(productID: transaction.productID, orderID: nil, appAccountToken: transaction.appAccountToken)
            return try await delivery.deliver(transaction, ticket: unordered)
        }
    }

    /// After a durable credit: the cache, onboarding, streams and analytics learn of it.
    private func delivered(_ receipt: DeliveryReceipt, transaction: StoreTransaction, firstTime: Bool) async {
        // The snapshot was queued when the destination answered; wait for it to be applied.
        await accountTail?.value
        if let entitlement = configuration.onboardingEntitlement, !transaction.isRevoked,
            receipt.entitlements.contains(where: { $0.id == entitlement && $0.active })
        {
            _ = await logFailure(.completeOnboarding) { () async throws(TallyError) in
                try await cache.completeOnboarding(transactionID: transaction.id, at: now())
            }
        }
        if firstTime, transaction.isRevoked {
            configuration.log.log(.refundTakenBack(transactionID: transaction.id, productID: transaction.productID))
        }
        if firstTime {
            await record(
                transaction.isRevoked ? .refunded : .completed, productID: transaction.productID, transactionID: transaction.id,
                granted: transaction.isRevoked ? [] : receipt.granted)
        }
    }

    func scheduleRetry(_ eventID: String, failures: Int, minimum: TimeInterval) {
        guard started, retries[eventID] == nil else { return }
        let delay = configuration.retry.delay(afterFailures: max(1, failures), atLeast: minimum, using: &random)
        configuration.log.log(.retryScheduled(transactionID: eventID, seconds: delay, failures: failures))
        retries[eventID] = Task { [weak self, sleep] in
            do { try await sleep(delay) } catch { return }
            await self?.retry(eventID)
        }
    }

    private func retry(_ eventID: String) async {
        retries[eventID] = nil
        guard started, let entry = await logFailure(.readJournal, { () async throws(TallyError) in try await journal.entry(eventID) }) ?? nil,
            entry.state == .received || entry.state == .delivered
        else { return }
        _ = await deliverOrSchedule(entry.transaction, attempts: 1)
    }

    func handleUpdate(_ transaction: StoreTransaction) async {
        // StoreKit also replays unfinished transactions through its updates at launch: one
        // refused recently waits like the start's own (it is signed anew, so no newer evidence tells).
        let eventID = PurchaseJournal.eventID(transaction)
        if let entry = await logFailure(.readJournal, { () async throws(TallyError) in try await journal.entry(eventID) }) ?? nil,
            let next = nextTry(of: entry)
        {
            configuration.log.log(.rejectedBackedOff(transactionID: transaction.id, nextTry: next))
            return
        }
        _ = await deliverOrSchedule(transaction, attempts: 1)
    }

    /// Takes up whatever a previous run left: see ``start()``.
    /// - Parameter journaled: the journal's unfinished entries, as ``start()`` read them.
    func recover(_ journaled: [PurchaseJournal.Entry]) async {
        // Journaled first: they carry the order they were bought with. What was refused for good
        // recently waits (StoreKit hands it over at every launch; it would be refused again).
        var backedOff = Set<String>()
        for entry in journaled {
            if let next = nextTry(of: entry) {
                backedOff.insert(entry.eventID)
                configuration.log.log(.rejectedBackedOff(transactionID: entry.transaction.id, nextTry: next))
                continue
            }
            _ = await deliverOrSchedule(entry.transaction, orderID: entry.orderID, attempts: 1)
        }
        for transaction in await logFailure(.readUnfinished, { () async throws(TallyError) in try await store.unfinishedTransactions() }) ?? [] {
            if backedOff.contains(PurchaseJournal.eventID(transaction)) { continue }
            _ = await deliverOrSchedule(transaction, attempts: 1)
        }
        await takeBackRefundsMadeWhileClosed()
        await retryPendingSpends()
        // Prepared purchases that no transaction paid: the payment never happened. An Ask to
        // Buy request lapses after a day; a payment that still comes fulfils the closed order.
        let cutoff = now().addingTimeInterval(-configuration.abandonUnpaidAfter)
        let pendingCutoff = min(cutoff, now().addingTimeInterval(-Self.askToBuyLifetime))
        let unpaid = await logFailure(.readJournal) { () async throws(TallyError) in
            try await journal.unpaidIntents(openBefore: cutoff, pendingBefore: pendingCutoff)
        }
        for intent in unpaid ?? [] {
            // Tried again at the next start.
            _ = await logFailure(.closeOrder) { () async throws(TallyError) in
                try await delivery.abandon(intent.ticket, reason: "not_paid")
                try await journal.setIntent(intent.id, state: "abandoned", now: now())
            }
        }
        // A new install of a subscription-gated app knows of no payment yet: the store's history
        // tells a lapsed subscriber (straight to the paywall) from someone who never paid.
        var kept: [StoreTransaction] = []
        if configuration.onboardingEntitlement != nil,
            await logFailure(.readOnboarding, { () async throws(TallyError) in try await cache.onboardingCompleted() }) != true
        {
            kept = await keptPurchasesFromHistory()
        }
        _ = await logFailure(.refresh) { () async throws(TallyError) in try await refresh(including: kept) }
    }

    /// When a transaction refused for good may be delivered again at a start; `nil` when now.
    func nextTry(of entry: PurchaseJournal.Entry) -> Date? {
        guard entry.state == .rejected else { return nil }
        let next = entry.updatedAt.addingTimeInterval(configuration.rejectedRetryInterval)
        return next > now() ? next : nil
    }

    /// Logs a failed delivery: a refused verification as a fault (a setup mistake refuses every
    /// purchase so), another refusal as an error, what is retried as a notice.
    private func logRefusal(_ error: TallyError, of transaction: StoreTransaction) {
        let log = configuration.log
        if error.isTransient {
            log.log(.deliveryFailed(transactionID: transaction.id, code: error.code.rawValue, reason: error.reason))
        } else if error.code == .verificationFailed {
            log.log(
                .verificationRefused(
                    transactionID: transaction.id, productID: transaction.productID, code: error.detail ?? error.code.rawValue,
                    reason: error.reason))
        } else {
            log.log(.deliveryRefused(transactionID: transaction.id, productID: transaction.productID, code: error.code.rawValue, reason: error.reason))
        }
    }

    /// Refunds and revocations made while the app was not running: the store's updates do not
    /// replay them at launch, but its history keeps them (refunded consumables included), so
    /// each one the journal has not finished is delivered as a revocation, once.
    private func takeBackRefundsMadeWhileClosed() async {
        let history = await logFailure(.readHistory) { () async throws(TallyError) in try await store.transactionHistory() }
        for transaction in history ?? [] where transaction.isRevoked {
            let known = await logFailure(.readJournal) { () async throws(TallyError) in try await journal.entry(PurchaseJournal.eventID(transaction)) }
            if known??.state == .finished || known??.state == .rejected { continue }
            _ = await deliverOrSchedule(transaction, attempts: 1)
        }
    }

    /// How long a pending purchase is waited for before its order is closed: two days.
    static let askToBuyLifetime: TimeInterval = 2 * 86_400
}
