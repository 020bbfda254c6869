import Foundation
import TallyCore
import TallySQL

/// The ledger's SQL, each function a step inside the caller's transaction.
extension OnDeviceLedger {
    /// Records a purchase; `true` when it is new.
    @discardableResult
    static func record(_ executor: any SQLExecutor, payload: TransactionPayload, evidence: TransactionEvidence, time: Int64) async throws -> Bool {
        let transactionID = payload.transactionID ?? ""
        let quantity = Int64(min(10, max(1, payload.quantity ?? 1)))
        return try await executor.execute(
            """
            INSERT INTO ledger_purchases (transaction_id, original_transaction_id, product_id, quantity, purchase_date, expires_date,
                price, currency, environment, evidence_kind, evidence, recorded_at, revoked_at)
            VALUES (\(transactionID), \(payload.originalTransactionID ?? transactionID), \(payload.productID ?? ""), \(quantity),
                \(payload.purchaseDate.map(JournalTime.millis)), \(payload.expiresDate.map(JournalTime.millis)), \(payload.price),
                \(payload.currency), \(payload.environment?.rawValue), \(evidence.kind), \(evidence.text), \(time),
                \(payload.revocationDate.map(JournalTime.millis)))
            ON CONFLICT (transaction_id) DO NOTHING
            """) == 1
    }

    /// Grants a new purchase's product × quantity, one lot per currency; debts are repaid first.
    static func grant(_ executor: any SQLExecutor, product: OnDeviceCatalog.Product, payload: TransactionPayload, time: Int64) async throws -> [Amount] {
        let transactionID = payload.transactionID ?? ""
        let quantity = Int64(min(10, max(1, payload.quantity ?? 1)))
        let acquired = payload.purchaseDate.map(JournalTime.millis) ?? time
        var granted: [Amount] = []
        for grant in product.grants {
            let (amount, overflow) = grant.amount.multipliedReportingOverflow(by: quantity)
            guard !overflow else { throw TallyError(.invalidRequest, "\(grant.amount) \(grant.currency) × \(quantity) does not fit in 64 bits") }
            try await executor.execute(
                "INSERT INTO ledger_lots (transaction_id, currency, amount, acquired_at) VALUES (\(transactionID), \(grant.currency), \(amount), \(acquired))")
            let lot = try await executor.fetchOne(InsertedRow.self, InsertedRow.query)?.id ?? 0
            try await entry(executor, grant.currency, bucket: .balance, kind: .purchase, amount: amount, lot: lot, transaction: transactionID, time: time)
            let debt = try await balance(executor, grant.currency).debt
            let repaid = min(debt, amount)
            if repaid > 0 {
                try await entry(executor, grant.currency, bucket: .balance, kind: .repay, amount: -repaid, lot: lot, transaction: transactionID, time: time)
                try await entry(executor, grant.currency, bucket: .debt, kind: .repay, amount: -repaid, transaction: transactionID, time: time)
            }
            try await adjust(executor, grant.currency, available: amount - repaid, debt: -repaid)
            granted.append(Amount(currency: grant.currency, amount: amount))
        }
        return granted
    }

    /// What a recorded purchase granted.
    static func grants(_ executor: any SQLExecutor, transactionID: String) async throws -> [Amount] {
        try await executor.fetchAll(AmountRow.self, "SELECT currency, amount FROM ledger_lots WHERE transaction_id = \(transactionID) ORDER BY id")
            .map(\.amount)
    }

    /// Revokes a refunded purchase once: the unspent part of its lots is removed, the spent
    /// part becomes debt. `true` when this call revoked it.
    static func revoke(_ executor: any SQLExecutor, payload: TransactionPayload, evidence: TransactionEvidence, time: Int64) async throws -> Bool {
        let transactionID = payload.transactionID ?? ""
        let revokedAt = payload.revocationDate.map(JournalTime.millis) ?? time
        // A refund of a purchase never delivered here: recorded as revoked, nothing to take back.
        if try await record(executor, payload: payload, evidence: evidence, time: time) { return true }
        let revoked = try await executor.execute(
            "UPDATE ledger_purchases SET revoked_at = \(revokedAt) WHERE transaction_id = \(transactionID) AND revoked_at IS NULL")
        guard revoked == 1 else { return false }
        let lots = try await executor.fetchAll(
            LotRow.self,
            """
            SELECT \(LotRow.selection)
            FROM ledger_lots l LEFT JOIN ledger_entries e ON e.lot_id = l.id AND e.bucket = \(LedgerBucket.balance)
            WHERE l.transaction_id = \(transactionID) GROUP BY l.id ORDER BY l.id
            """)
        for lot in lots {
            let currency = lot.currency, amount = lot.amount
            // Held amounts stay spendable by their reservation; only what is free can be removed.
            let removed = max(0, min(lot.remaining, try await balance(executor, currency).available))
            if removed > 0 {
                try await entry(
                    executor, currency, bucket: .balance, kind: .refund, amount: -removed, lot: lot.id, transaction: transactionID, time: time)
            }
            let debt = amount - removed
            if debt > 0 {
                try await entry(executor, currency, bucket: .debt, kind: .refundDebt, amount: debt, transaction: transactionID, time: time)
            }
            try await adjust(executor, currency, available: -removed, debt: debt)
        }
        return true
    }

    /// Takes `amount` from the lots in the order they were delivered, first first (as the
    /// server does): a purchase delivered late does not jump ahead of credits already there.
    static func take(
        _ executor: any SQLExecutor, currency: String, amount: Int64, kind: LedgerEntryKind, operation: String, reference: String?, time: Int64
    ) async throws {
        let lots = try await executor.fetchAll(
            LotRow.self,
            """
            SELECT \(LotRow.selection)
            FROM ledger_lots l JOIN ledger_entries e ON e.lot_id = l.id AND e.bucket = \(LedgerBucket.balance)
            WHERE l.currency = \(currency) GROUP BY l.id HAVING SUM(e.amount) > 0 ORDER BY l.id
            """)
        var left = amount
        for lot in lots where left > 0 {
            let taken = min(left, lot.remaining)
            try await entry(
                executor, currency, bucket: .balance, kind: kind, amount: -taken, lot: lot.id, transaction: lot.transactionID, operation: operation,
                reference: reference, time: time)
            left -= taken
        }
        guard left == 0 else { throw TallyError(.storageFailed, "the lots of \(currency) hold less than its balance") }
    }

    static func entry(
        _ executor: any SQLExecutor, _ currency: String, bucket: LedgerBucket, kind: LedgerEntryKind, amount: Int64, lot: Int64? = nil,
        transaction: String? = nil, operation: String? = nil, reference: String? = nil, time: Int64
    ) async throws {
        try await executor.execute(
            """
            INSERT INTO ledger_entries (currency, bucket, kind, amount, lot_id, transaction_id, operation_id, reference, created_at)
            VALUES (\(currency), \(bucket), \(kind), \(amount), \(lot), \(transaction), \(operation), \(reference), \(time))
            """)
    }

    static func adjust(_ executor: any SQLExecutor, _ currency: String, available: Int64 = 0, held: Int64 = 0, debt: Int64 = 0) async throws {
        // An update first: an upsert would check its insert row (a negative change) against the CHECKs.
        let updated = try await executor.execute(
            "UPDATE ledger_balances SET available = available + \(available), held = held + \(held), debt = debt + \(debt) WHERE currency = \(currency)")
        if updated == 0 {
            try await executor.execute(
                "INSERT INTO ledger_balances (currency, available, held, debt) VALUES (\(currency), \(available), \(held), \(debt))")
        }
    }

    static func balance(_ executor: any SQLExecutor, _ currency: String) async throws -> Balance {
        guard let row = try await executor.fetchOne(BalanceRow.self, "SELECT * FROM ledger_balances WHERE currency = \(currency)") else {
            return Balance(currency: currency, available: 0, held: 0, debt: 0, spendable: 0)
        }
        return row.balance
    }

    static func balances(_ executor: any SQLExecutor) async throws -> [Balance] {
        try await executor.fetchAll(BalanceRow.self, "SELECT * FROM ledger_balances ORDER BY currency").map(\.balance)
    }

    /// Units a hold gives back return to available, debt repaid first: a unit refunded while it
    /// was held is owed, and goes to the debt rather than back to the balance.
    static func giveBack(_ executor: any SQLExecutor, _ currency: String, amount: Int64, operation: String, time: Int64) async throws {
        guard amount > 0 else { return }
        let repaid = min(try await balance(executor, currency).debt, amount)
        if repaid > 0 {
            try await take(executor, currency: currency, amount: repaid, kind: .repay, operation: operation, reference: nil, time: time)
            try await entry(executor, currency, bucket: .debt, kind: .repay, amount: -repaid, operation: operation, time: time)
        }
        try await adjust(executor, currency, available: amount - repaid, debt: -repaid)
    }

    /// Reservations past their time return what they hold.
    static func expireReservations(_ executor: any SQLExecutor, now: Int64) async throws {
        let expired = try await executor.fetchAll(
            ReservationRow.self, "SELECT * FROM ledger_reservations WHERE status = \(ReservationStatus.held) AND expires_at <= \(now)")
        for reservation in expired {
            let id = reservation.id, currency = reservation.currency, amount = reservation.amount
            try await entry(executor, currency, bucket: .held, kind: .expire, amount: -amount, operation: id, time: now)
            try await adjust(executor, currency, held: -amount)
            try await giveBack(executor, currency, amount: amount, operation: id, time: now)
            try await executor.execute("UPDATE ledger_reservations SET status = \(ReservationStatus.expired) WHERE id = \(id)")
        }
    }

    static func reservation(_ executor: any SQLExecutor, id: String, replayed: Bool) async throws -> Reservation {
        guard let row = try await executor.fetchOne(ReservationRow.self, "SELECT * FROM ledger_reservations WHERE id = \(id)") else {
            throw TallyError(.storageFailed, "reservation \(id) vanished")
        }
        return try await reservation(executor, row, replayed: replayed)
    }

    static func reservation(_ executor: any SQLExecutor, _ row: ReservationRow, replayed: Bool) async throws -> Reservation {
        Reservation(
            reservationID: row.id, currency: row.currency, amount: row.amount, fromAllowance: 0, fromBalance: row.amount, status: row.status,
            used: row.used, expiresAt: JournalTime.date(row.expiresAt), balance: try await balance(executor, row.currency), replayed: replayed)
    }

    /// Keeps a subscription's latest verified renewal info: whether it will renew and when its
    /// billing grace period ends. An older one than what is kept changes nothing.
    static func recordRenewal(_ executor: any SQLExecutor, _ renewal: RenewalInfoPayload) async throws {
        guard let original = renewal.originalTransactionID, let product = renewal.productID, let signed = renewal.signedDate else { return }
        try await executor.execute(
            """
            INSERT INTO ledger_renewals (original_transaction_id, product_id, will_renew, grace_expires, signed_at)
            VALUES (\(original), \(product), \(renewal.autoRenewStatus == .on), \(renewal.gracePeriodExpiresDate.map(JournalTime.millis)),
                \(JournalTime.millis(signed)))
            ON CONFLICT (original_transaction_id) DO UPDATE SET product_id = excluded.product_id, will_renew = excluded.will_renew,
                grace_expires = excluded.grace_expires, signed_at = excluded.signed_at
            WHERE excluded.signed_at >= ledger_renewals.signed_at
            """)
    }

    /// Entitlements from the purchases recorded here: non-consumables while not revoked,
    /// non-renewing subscriptions for their catalog duration from the latest purchase,
    /// auto-renewables until their latest expiry, or the end of a billing grace period the
    /// store's renewal info gives.
    static func entitlements(_ executor: any SQLExecutor, catalog: OnDeviceCatalog, now: Int64) async throws -> [Entitlement] {
        var result: [String: Entitlement] = [:]
        for product in catalog.products where !product.entitlements.isEmpty {
            guard
                let row = try await executor.fetchOne(
                    OwnershipRow.self,
                    """
                    SELECT COUNT(*) AS owned, MAX(expires_date) AS expires, MAX(purchase_date) AS latest
                    FROM ledger_purchases WHERE product_id = \(product.id) AND revoked_at IS NULL
                    """
                ), row.owned > 0
            else { continue }
            var expires: Int64?
            switch product.kind {
            case .autoRenewable: expires = row.expires
            // The App Store gives a non-renewing subscription no expiry: the catalog does.
            case .nonRenewing: expires = (row.latest ?? 0) + Int64(product.durationDays ?? 0) * 86_400_000
            default: expires = nil
            }
            var active = product.kind == .autoRenewable || product.kind == .nonRenewing ? (expires ?? 0) > now : true
            var inGracePeriod = false
            var willRenew: Bool?
            if product.kind == .autoRenewable,
                let renewal = try await executor.fetchOne(
                    RenewalRow.self,
                    "SELECT MAX(will_renew) AS will_renew, MAX(grace_expires) AS grace FROM ledger_renewals WHERE product_id = \(product.id) HAVING COUNT(*) > 0"
                )
            {
                willRenew = renewal.willRenew.map { $0 == 1 }
                // Apple keeps full service through a billing grace period; until its end, as the
                // server reports it too.
                if !active, let grace = renewal.grace, grace > now {
                    active = true
                    inGracePeriod = true
                    expires = grace
                }
            }
            for id in product.entitlements {
                let candidate = Entitlement(
                    id: id, active: active, productID: product.id, expiresAt: expires.map(JournalTime.date), inGracePeriod: inGracePeriod,
                    willRenew: willRenew)
                if let existing = result[id], existing.active, !active || (existing.expiresAt ?? .distantFuture) >= (candidate.expiresAt ?? .distantFuture) {
                    continue
                }
                result[id] = candidate
            }
        }
        return result.values.sorted { $0.id < $1.id }
    }
}
