import Foundation
import TallyCore
import TallyLedger
import TallySQL

/// The ledger's SQL, each function a step inside the caller's transaction. Credits follow
/// TallyLedger's rules (``CreditLedger``), the server's own; what is the device's is here: its
/// purchases, consumptions, reservations and renewal info.
extension OnDeviceLedger {
    /// The credit ledger inside a write at `time`.
    static func credits(_ executor: any SQLExecutor, time: Int64) -> CreditLedger {
        CreditLedger(executor, schema: LocalDatabase.ledgerSchema, now: time)
    }

    /// The device: the one holder of its credits.
    static var holder: String { LocalDatabase.holder }

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
        let ledger = credits(executor, time: time)
        var granted: [Amount] = []
        for grant in product.grants {
            let (amount, overflow) = grant.amount.multipliedReportingOverflow(by: quantity)
            guard !overflow else { throw TallyError(.invalidRequest, "\(grant.amount) \(grant.currency) × \(quantity) does not fit in 64 bits") }
            try await ledger.grant(holder, grant.currency, amount: amount, kind: .purchase, transaction: transactionID)
            granted.append(Amount(currency: grant.currency, amount: amount))
        }
        return granted
    }

    /// What a recorded purchase granted.
    static func grants(_ executor: any SQLExecutor, transactionID: String) async throws -> [Amount] {
        try await executor.fetchAll(
            AmountRow.self,
            "SELECT \(AmountRow.Columns.currency), \(AmountRow.Columns.granted) FROM lots WHERE transaction_id = \(transactionID) ORDER BY id"
        ).map(\.amount)
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
        let ledger = credits(executor, time: time)
        for lot in try await ledger.unrevokedLots(transaction: transactionID) {
            try await ledger.clawBack(lotID: lot.id, holder: holder, currency: lot.currency, transaction: transactionID)
        }
        return true
    }

    static func balance(_ executor: any SQLExecutor, _ currency: String) async throws -> Balance {
        balance(currency, try await CreditLedger.position(executor, holder, currency))
    }

    /// A position as the app sees it: all that is available can be spent on the device.
    static func balance(_ currency: String, _ position: CreditPosition) -> Balance {
        Balance(currency: currency, available: position.available, held: position.held, debt: position.debt, spendable: position.available)
    }

    static func balances(_ executor: any SQLExecutor) async throws -> [Balance] {
        try await executor.fetchAll(
            BalanceRow.self, "SELECT \(BalanceRow.Columns.currency), \(CreditPosition.selection) FROM positions WHERE user_id = \(holder) ORDER BY currency"
        ).map(\.balance)
    }

    /// Ends a held reservation: `used` of it is spent, the rest returns to available.
    static func settle(_ executor: any SQLExecutor, _ reservation: ReservationRow, used: Int64, status: ReservationStatus, time: Int64) async throws {
        let id = reservation.id
        try await credits(executor, time: time).settleHold(
            holder, reservation.currency, held: reservation.amount, used: used, operation: id, reference: reservation.reference)
        if used > 0 {
            // The audit trail of spends lists what a reservation used, under the reservation's id.
            try await executor.execute(
                """
                INSERT INTO ledger_spends (idempotency_key, currency, amount, reference, created_at)
                VALUES (\(id), \(reservation.currency), \(used), \(reservation.reference), \(time))
                """)
        }
        try await executor.execute(
            "UPDATE ledger_reservations SET status = \(status), used = \(status == .committed ? used : nil) WHERE id = \(id)")
    }

    /// Reservations past their time return what they hold.
    static func expireReservations(_ executor: any SQLExecutor, now: Int64) async throws {
        let expired = try await executor.fetchAll(
            ReservationRow.self, "SELECT * FROM ledger_reservations WHERE status = \(ReservationStatus.held) AND expires_at <= \(now)")
        for reservation in expired { try await settle(executor, reservation, used: 0, status: .expired, time: now) }
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
