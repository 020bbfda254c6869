import Foundation
import TallyCore

/// Journal → deliver → record → finish, once per transaction, with retries.
extension PurchaseManager {
    /// Delivers a transaction, trying up to `attempts` times here (waiting between tries) and
    /// leaving a transient failure to a background retry.
    func deliverOrSchedule(_ transaction: StoreTransaction, orderID: String? = nil, attempts: Int) async -> Result<DeliveryReceipt, TallyError> {
        var attempt = 1
        while true {
            let result = await process(transaction, orderID: orderID)
            guard case .failure(let error) = result, error.isTransient else { return result }
            let failures = (try? await journal.entry(PurchaseJournal.eventID(transaction)))?.attempts ?? attempt
            if attempt >= max(1, attempts) || !started {
                scheduleRetry(PurchaseJournal.eventID(transaction), failures: failures, minimum: error.retryAfter ?? .zero)
                return result
            }
            let delay = configuration.retry.delay(afterFailures: failures, atLeast: error.retryAfter ?? .zero, using: &random)
            do { try await sleep(delay) } catch { return result }
            attempt += 1
        }
    }

    /// One delivery of one transaction; concurrent calls for the same transaction share it.
    func process(_ transaction: StoreTransaction, orderID: String?) async -> Result<DeliveryReceipt, TallyError> {
        let eventID = PurchaseJournal.eventID(transaction)
        if let running = deliveries[eventID] { return await running.value }
        let task = Task { await self.run(transaction, orderID: orderID) }
        deliveries[eventID] = task
        let result = await task.value
        deliveries[eventID] = nil
        return result
    }

    private func run(_ transaction: StoreTransaction, orderID: String?) async -> Result<DeliveryReceipt, TallyError> {
        let eventID = PurchaseJournal.eventID(transaction)
        do throws(TallyError) {
            let intent = transaction.isRevoked ? nil : try await journal.intent(paidBy: transaction)
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
                let ticket = PurchaseTicket(productID: transaction.productID, orderID: entry.orderID, appAccountToken: transaction.appAccountToken)
                do throws(TallyError) {
                    receipt = try await delivery.deliver(transaction, ticket: ticket)
                } catch {
                    try? await journal.markFailed(eventID, error: error, rejected: !error.isTransient, now: now())
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
                } catch {
                    // The credit is durable; finishing is tried again at the next start.
                }
            }
            await delivered(receipt, transaction: transaction, firstTime: deliveredNow)
            return .success(receipt)
        } catch {
            return .failure(error)
        }
    }

    /// After a durable credit: the cache, onboarding, streams and analytics learn of it.
    private func delivered(_ receipt: DeliveryReceipt, transaction: StoreTransaction, firstTime: Bool) async {
        let snapshot = AccountSnapshot(balances: receipt.balances, entitlements: receipt.entitlements)
        try? await cache.store(snapshot, fetchedAt: now())
        if let entitlement = configuration.onboardingEntitlement, !transaction.isRevoked,
           receipt.entitlements.contains(where: { $0.id == entitlement && $0.active }) {
            try? await cache.completeOnboarding(transactionID: transaction.id, at: now())
        }
        if let asOf = try? await cache.effectiveNow(now()) {
            accountBroadcast.publish(AccountState(snapshot: snapshot, fetchedAt: now(), source: .fetched, isStale: false, asOf: asOf))
        }
        if firstTime {
            await record(transaction.isRevoked ? .refunded : .completed, productID: transaction.productID, transactionID: transaction.id)
        }
    }

    func scheduleRetry(_ eventID: String, failures: Int, minimum: Duration) {
        guard started, retries[eventID] == nil else { return }
        let delay = configuration.retry.delay(afterFailures: max(1, failures), atLeast: minimum, using: &random)
        retries[eventID] = Task { [weak self, sleep] in
            do { try await sleep(delay) } catch { return }
            await self?.retry(eventID)
        }
    }

    private func retry(_ eventID: String) async {
        retries[eventID] = nil
        guard started, let entry = try? await journal.entry(eventID), entry.state == .received || entry.state == .delivered else { return }
        _ = await deliverOrSchedule(entry.transaction, attempts: 1)
    }

    func handleUpdate(_ transaction: StoreTransaction) async {
        _ = await deliverOrSchedule(transaction, attempts: 1)
    }

    /// Takes up whatever a previous run left: see ``start()``.
    func recover() async {
        // Journaled first: they carry the order they were bought with.
        for entry in (try? await journal.unfinished()) ?? [] {
            _ = await deliverOrSchedule(entry.transaction, orderID: entry.orderID, attempts: 1)
        }
        for transaction in (try? await store.unfinishedTransactions()) ?? [] {
            _ = await deliverOrSchedule(transaction, attempts: 1)
        }
        await retryPendingSpends()
        // Prepared purchases that no transaction paid: the payment never happened.
        let cutoff = now().addingTimeInterval(-Self.seconds(configuration.abandonUnpaidAfter))
        for intent in (try? await journal.openIntents(before: cutoff)) ?? [] {
            do throws(TallyError) {
                try await delivery.abandon(intent.ticket, reason: "not_paid")
                try await journal.setIntent(intent.id, state: "abandoned", now: now())
            } catch {
                // Tried again at the next start.
            }
        }
        _ = try? await refresh()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
