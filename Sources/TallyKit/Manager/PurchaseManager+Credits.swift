import Foundation
public import TallyCore

extension PurchaseManager {
    /// The balance of one currency, as ``account(_:)`` knows it under `policy`.
    ///
    /// ```swift
    /// let reports = try await manager.balance(of: "report.career")
    /// if reports.spendable == 0 { showPaywall() }
    /// ```
    /// - Parameters:
    ///   - currency: the currency, as the catalog names it (`report.career`, `credits`).
    ///   - policy: how fresh it must be; the cache first by default, as for ``account(_:)``.
    ///     A purchase, spend or restore that returned has already updated the cache.
    /// - Returns: the balance; all zero for a currency the account holds none of.
    /// - Throws: ``TallyError`` when a fetch is needed and fails.
    public func balance(of currency: String, policy: FetchPolicy = .cachedOrFetched) async throws(TallyError) -> Balance {
        try await account(policy).balance(currency)
    }

    /// Spends an amount: subscription allowance first, then the oldest purchase.
    ///
    /// The key is required because a spend whose answer was lost may have happened: the same
    /// call again with the same key spends once, whatever happened before, even after a
    /// restart. Derive it from what is paid for, so that a retry carries it by itself:
    ///
    /// ```swift
    /// try await manager.spend("credits", amount: 1, reference: photo.id, idempotencyKey: "photo-\(photo.id)")
    /// ```
    ///
    /// Network failures are also retried here, with the same key.
    /// - Parameters:
    ///   - currency: the currency.
    ///   - amount: how much, more than zero.
    ///   - reference: what it is spent on, kept in the ledger.
    ///   - idempotencyKey: the spend's key (1 to 128 bytes): one per thing paid for, the same on every retry.
    /// - Throws: ``TallyError`` `insufficient_credits` (with ``TallyError/available``), network errors,
    ///   `invalid_request` for a key used before for another amount or currency.
    @discardableResult
    public func spend(_ currency: String, amount: Int64, reference: String? = nil, idempotencyKey: String) async throws(TallyError) -> SpendResponse {
        let order = SpendOrder(currency: currency, amount: amount, idempotencyKey: idempotencyKey, reference: reference)
        let response = try await withRetries { [delivery] () async throws(TallyError) -> SpendResponse in try await delivery.spend(order) }
        await publish(response.balance)
        return response
    }

    /// Holds an amount for metered use (seconds of recording, say) until it is committed,
    /// released, or expires after `ttlSeconds`.
    ///
    /// As for ``spend(_:amount:reference:idempotencyKey:)``, the key is required and is the same
    /// on every retry (`"recording-\(recording.id)"`), so a retry holds once.
    /// ``consume(_:amount:for:work:)`` does all of this for work that either succeeds or fails.
    /// - Parameters:
    ///   - currency: the currency.
    ///   - amount: how much to hold.
    ///   - ttlSeconds: seconds until an uncommitted hold returns by itself.
    ///   - reference: what it is used for.
    ///   - idempotencyKey: the reservation's key: one per use, the same on every retry.
    /// - Throws: ``TallyError`` `insufficient_credits`, network errors.
    public func reserve(
        _ currency: String, amount: Int64, ttlSeconds: Int64, reference: String? = nil, idempotencyKey: String
    ) async throws(TallyError) -> Reservation {
        let order = ReservationOrder(currency: currency, amount: amount, ttlSeconds: ttlSeconds, idempotencyKey: idempotencyKey, reference: reference)
        let reservation = try await withRetries { [delivery] () async throws(TallyError) -> Reservation in try await delivery.reserve(order) }
        await publish(reservation.balance)
        return reservation
    }

    /// Spends what a reservation used; the rest returns to the balance.
    ///
    /// The commit is journaled first: if its answer does not arrive, it is retried in the
    /// background and at every start, so work that was done is always paid for once.
    /// - Throws: ``TallyError`` `reservation_closed` when it was released or expired.
    @discardableResult
    public func commit(_ reservation: Reservation, used: Int64) async throws(TallyError) -> Reservation? {
        let pending = PurchaseJournal.PendingSpend.commit(reservation: reservation.reservationID, used: used, key: "commit:" + reservation.reservationID)
        try await journal.recordPendingSpend(pending, now: now())
        do throws(TallyError) {
            let committed = try await withRetries { [delivery] () async throws(TallyError) -> Reservation in
                try await delivery.commit(reservationID: reservation.reservationID, used: used)
            }
            try? await journal.clearPendingSpend(pending.key)
            await publish(committed.balance)
            return committed
        } catch  where error.isTransient {
            pendingSpendFailures += 1
            schedulePendingSpendRetry(failures: pendingSpendFailures)
            return nil
        } catch {
            try? await journal.clearPendingSpend(pending.key)
            throw error
        }
    }

    /// Returns a whole reservation to the balance.
    @discardableResult
    public func release(_ reservation: Reservation) async throws(TallyError) -> Reservation {
        let released = try await withRetries { [delivery] () async throws(TallyError) -> Reservation in
            try await delivery.release(reservationID: reservation.reservationID)
        }
        await publish(released.balance)
        return released
    }

    /// Uses a credit for a piece of work: checks and holds one, runs `work`, and consumes the
    /// oldest credit only if the work succeeded; if it throws, the credit stays available.
    ///
    /// ```swift
    /// let report = try await manager.consume("report.career", for: profile.id) {
    ///     try await reports.generate(.career, for: profile)
    /// }
    /// ```
    /// - Parameters:
    ///   - currency: the credit's currency (`report.career`, `credits`).
    ///   - amount: how many, 1 by default.
    ///   - reference: what it is used for (a profile id), kept in the audit trail.
    ///   - work: the work to pay for.
    /// - Returns: what the work returned.
    /// - Throws: ``TallyError`` `insufficient_credits` before the work starts; whatever the work throws.
    public func consume<Value: Sendable>(
        _ currency: String, amount: Int64 = 1, for reference: String? = nil, work: @Sendable () async throws -> Value
    ) async throws -> Value {
        // Journaled before it is asked for, so that a hold whose answer was lost, or left by an
        // app killed during the work, is released at the next start.
        let order = ReservationOrder(
            currency: currency, amount: amount, ttlSeconds: configuration.consumeHoldSeconds,
            idempotencyKey: UUID().uuidString, reference: reference)
        let hold = PurchaseJournal.PendingSpend.hold(order)
        try await journal.recordPendingSpend(hold, now: now())
        activeHolds.insert(order.idempotencyKey)
        defer { activeHolds.remove(order.idempotencyKey) }
        let reservation: Reservation
        // One catch-all clause with an `if`, not `catch where`: a partial `catch where` here, beside
        // the `defer` above, hangs or crashes Swift 6.3.1's optimizer (MandatoryInlining) in -O builds.
        do {
            reservation = try await reserve(
                currency, amount: amount, ttlSeconds: order.ttlSeconds, reference: reference, idempotencyKey: order.idempotencyKey)
        } catch {
            // Refused (not enough credits): nothing is held. A transient failure keeps the
            // journaled hold, which the next start settles.
            if !error.isTransient { try? await journal.clearPendingSpend(hold.key) }
            throw error
        }
        let value: Value
        do {
            value = try await work()
        } catch {
            // A hold whose release fails stays journaled: the next start releases it.
            if (try? await release(reservation)) != nil {
                try? await journal.clearPendingSpend(hold.key)
            }
            throw error
        }
        // The commit is journaled before the hold's record goes: a crash between them is
        // settled by the commit, never by a release of work that was done.
        do {
            try await commit(reservation, used: amount)
        } catch  where error.code == .reservationClosed {
            // The work outlived its hold: it is paid for with a spend instead, journaled so that a
            // lost answer is sent again; its result is kept either way.
            let late = PurchaseJournal.PendingSpend.spend(
                SpendOrder(
                    currency: currency, amount: amount, idempotencyKey: "late:" + reservation.reservationID, reference: reference))
            try? await journal.recordPendingSpend(late, now: now())
            if case .spend(let lateOrder) = late,
                (try? await spend(
                    currency, amount: amount, reference: reference, idempotencyKey: lateOrder.idempotencyKey)) != nil
            {
                try? await journal.clearPendingSpend(late.key)
            }
        } catch {
            try? await journal.clearPendingSpend(hold.key)
            throw error
        }
        try? await journal.clearPendingSpend(hold.key)
        return value
    }

    /// Where credits came from and what they were used for: each purchase with when it was
    /// acquired, each consumption with its reference (the profile it was for) and time, on the
    /// device also the purchases each consumption was taken from. See ``CreditHistory`` for
    /// what a Tally server can say.
    /// - Parameter currency: only this currency (`report.career`), or every one.
    /// - Returns: acquisitions and consumptions, oldest first.
    /// - Throws: ``TallyError`` `storage_failed` on the device, network errors with a server.
    public func creditHistory(currency: String? = nil) async throws(TallyError) -> CreditHistory {
        try await delivery.creditHistory(currency: currency)
    }

    /// Tries a call up to ``Configuration/attemptsDuringPurchase`` times while it fails for want of network.
    func withRetries<T: Sendable>(_ call: @Sendable () async throws(TallyError) -> T) async throws(TallyError) -> T {
        var failures = 0
        while true {
            do throws(TallyError) {
                return try await call()
            } catch  where error.isTransient && failures + 1 < max(1, configuration.attemptsDuringPurchase) {
                failures += 1
                let delay = configuration.retry.delay(afterFailures: failures, atLeast: error.retryAfter ?? 0, using: &random)
                let failure = error
                do { try await sleep(delay) } catch { throw failure }
            }
        }
    }

    func retryPendingSpends() async {
        let all = (try? await journal.pendingSpends()) ?? []
        // A hold whose work was committed is settled by its commit: commits go first, and its release never runs.
        let committed = Set(
            all.compactMap { pending -> String? in
                if case .commit(let reservation, _, _) = pending { reservation } else { nil }
            })
        let ordered = all.filter { if case .hold = $0 { false } else { true } } + all.filter { if case .hold = $0 { true } else { false } }
        for pending in ordered {
            do throws(TallyError) {
                switch pending {
                case .spend(let order):
                    let balance = try await delivery.spend(order).balance
                    await publish(balance)
                case .commit(let reservation, let used, _):
                    let balance = try await delivery.commit(reservationID: reservation, used: used).balance
                    await publish(balance)
                case .hold(let order):
                    // Work under way in this process keeps its hold.
                    guard !activeHolds.contains(order.idempotencyKey) else { continue }
                    // The same key finds the hold if it was made, and makes one to release if not.
                    let reservation = try await delivery.reserve(order)
                    if !committed.contains(reservation.reservationID) {
                        let balance = try await delivery.release(reservationID: reservation.reservationID).balance
                        await publish(balance)
                    }
                }
                try? await journal.clearPendingSpend(pending.key)
                pendingSpendFailures = 0
            } catch  where error.isTransient {
                // Backoff grows while the destination stays unreachable, as for deliveries.
                pendingSpendFailures += 1
                schedulePendingSpendRetry(failures: pendingSpendFailures)
            } catch {
                // Refused for good (the reservation expired, say): nothing more to do.
                try? await journal.clearPendingSpend(pending.key)
            }
        }
    }

    func schedulePendingSpendRetry(failures: Int) {
        let key = "pending-spends"
        guard started, retries[key] == nil else { return }
        let delay = configuration.retry.delay(afterFailures: failures, using: &random)
        retries[key] = Task { [weak self, sleep] in
            do { try await sleep(delay) } catch { return }
            await self?.retryPendingSpendsNow()
        }
    }

    private func retryPendingSpendsNow() async {
        retries["pending-spends"] = nil
        await retryPendingSpends()
    }

    /// A balance changed: the latest account state is updated, cached and published, in the
    /// order the destination's answers arrived.
    func publish(_ balance: Balance) async {
        await applyAccount(.balance(balance)).value
    }
}
