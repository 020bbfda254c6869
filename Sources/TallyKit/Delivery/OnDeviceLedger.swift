public import Foundation
public import TallyCore
import TallyLedger
import TallySQL
public import TallyVerify

/// Delivery for apps without a backend: purchases are verified on the device with
/// TallyVerify (Apple Root CA - G3 by default) and credited to a ledger in the device's
/// SQLite database, in one transaction with the purchase record.
///
/// Credits follow the server's rules, written once in TallyLedger (`CreditLedger`) over the
/// same tables: lots, one per purchase and currency, spent in the order they were delivered (a
/// purchase finished at a later launch does not jump ahead of credits already there, whatever
/// its purchase date); append-only entries (triggers refuse updates and deletes), with the
/// balances kept in the same transaction. A refunded purchase takes back what is left of its
/// lot; what was already spent is recorded as debt, repaid by the next grant.
/// ``creditHistory(currency:)`` lists each lot and each consumption with the lots it took.
///
/// Subscriptions: entitlements come from the transactions recorded here (a purchase, the
/// store's current entitlements at each refresh, the history at a restore), active until the
/// latest known expiry on the device's trusted time, or while a billing grace period lasts, as
/// the store's verified renewal info says (``Store/subscriptionRenewals()``), which also gives
/// `willRenew`. StoreKit 1 has no renewal info: there a subscription ends at its expiry date.
/// Non-renewing subscriptions last the catalog's `duration_days` from their latest purchase.
///
/// ``PurchaseManager/onDevice(catalog:appAppleID:bundleID:xcodeTestingCertificate:configuration:store:database:deviceIdentifier:deviceVerificationID:trust:now:)``
/// makes one with the right defaults. By hand:
///
/// ```swift
/// let database = try await LocalDatabase.standard()
/// let bundleID = Bundle.main.bundleIdentifier!
/// let ledger = try await OnDeviceLedger(
///     database: database, catalog: catalog,
///     verifier: SignedDataVerifier(.init(bundleID: .equals(bundleID), appAppleID: .equals(6_450_000_000),
///                                        environments: [.production, .sandbox]), now: { Date() }),
///     receiptVerifier: ReceiptVerifier(.init(bundleID: .equals(bundleID), environments: [.production, .sandbox]), now: { Date() }),
///     now: { Date() })
/// ```
///
/// StoreKit 1 proves purchases with the app receipt: give a ``ReceiptVerifier`` (Apple Root
/// CA, the RSA root, by default; required where StoreKit 1 can run) and the device's identifier (`identifierForVendor` on iOS),
/// and a receipt-backed transaction is credited only when the receipt verifies, was issued to
/// this device, and lists it.
public struct OnDeviceLedger: Delivery {
    /// What the app sells.
    public let catalog: OnDeviceCatalog
    let database: LocalDatabase
    let verifier: SignedDataVerifier
    let receiptVerifier: ReceiptVerifier?
    let deviceIdentifier: DeviceIdentifier?
    let deviceVerificationID: UUID?
    let now: @Sendable () -> Date
    /// The device's trusted time, shared with the entitlements cache: expiries and holds are
    /// judged on it, so moving the device's clock neither ends a subscription nor extends one.
    let clock: TrustedClock

    /// Opens the ledger in `database`, creating its tables the first time.
    /// - Parameters:
    ///   - database: the device's database.
    ///   - catalog: what each product grants and unlocks.
    ///   - verifier: checks every transaction's JWS before it is credited.
    ///   - receiptVerifier: checks app receipts (StoreKit 1). Required where StoreKit 1 can
    ///     run (see `storeKit1`); elsewhere, without one, a receipt-backed transaction is refused
    ///     with `verification_failed`.
    ///   - deviceIdentifier: the identifier the App Store binds this device's receipts to
    ///     (`identifierForVendor` on iOS); when given, a receipt issued to another device is refused.
    ///   - deviceVerificationID: the identifier StoreKit 2 binds this device's signed
    ///     transactions and renewal info to (``DeviceStore/deviceVerificationID``); when given, a
    ///     JWS signed for another device (``DeviceVerification``) is refused.
    ///   - storeKit1: whether the app's store can be StoreKit 1, whose purchases only a
    ///     `receiptVerifier` can prove. True by default where ``DeviceStore`` can pick it (every
    ///     Apple platform but visionOS, since the package supports systems below iOS 15, macOS 12,
    ///     tvOS 15 and watchOS 8); pass `false` only when the app's deployment target is at or
    ///     above them, or its store is never a `StoreKit1Store`.
    ///   - now: the device's clock.
    ///   - uptime: seconds since the device started. Subscription expiries, holds and the
    ///     ledger's times are judged on the device's trusted time, which advances with uptime
    ///     (the same one ``PurchaseManager`` judges its cache on), so that moving the device's
    ///     clock neither ends a paid subscription nor extends one.
    /// - Throws: ``TallyError`` `invalid_request` for a catalog with a problem,
    ///   `configuration_invalid` without a `receiptVerifier` where StoreKit 1 can run (every
    ///   purchase made with it would be paid and never credited), `storage_failed`.
    public init(
        database: LocalDatabase, catalog: OnDeviceCatalog, verifier: SignedDataVerifier, receiptVerifier: ReceiptVerifier? = nil,
        deviceIdentifier: DeviceIdentifier? = nil, deviceVerificationID: UUID? = nil, storeKit1: Bool = OnDeviceLedger.storeKit1CanRun,
        now: @escaping @Sendable () -> Date, uptime: @escaping @Sendable () -> TimeInterval = PurchaseManager.timeSinceBoot
    ) async throws(TallyError) {
        if let problem = catalog.problem { throw TallyError(.invalidRequest, "the on-device catalog is wrong: \(problem)") }
        if storeKit1, receiptVerifier == nil {
            throw TallyError(
                .configurationInvalid,
                "OnDeviceLedger needs a receiptVerifier: StoreKit 1 (below iOS 15, macOS 12, tvOS 15, watchOS 8) proves purchases with the app receipt, and without one every such purchase is paid and never credited. Pass ReceiptVerifier(.init(bundleID:environments:), now:), or storeKit1: false when the deployment target is at or above those systems.",
                detail: Self.noReceiptVerifier)
        }
        self.database = database
        self.catalog = catalog
        self.verifier = verifier
        self.receiptVerifier = receiptVerifier
        self.deviceIdentifier = deviceIdentifier
        self.deviceVerificationID = deviceVerificationID
        self.now = now
        self.clock = TrustedClock(uptime: uptime)
    }

    /// Whether ``DeviceStore/automatic(productKinds:)`` can pick StoreKit 1 on this platform:
    /// on every Apple platform but visionOS (the package supports systems below StoreKit 2);
    /// never where there is no StoreKit.
    public static var storeKit1CanRun: Bool {
        #if canImport(StoreKit) && !os(visionOS)
        return true
        #else
        return false
        #endif
    }

    /// The ``TallyError/detail`` of a receipt refused, or a ledger refused, for want of a receipt verifier.
    static let noReceiptVerifier = "no_receipt_verifier"

    // MARK: - Delivery

    public func catalog(language: TallyLanguage) async throws(TallyError) -> [ProductGrant] {
        catalog.grants(in: language)
    }

    public func prepare(productID: String) async throws(TallyError) -> PurchaseTicket {
        guard catalog.product(productID) != nil else {
            throw TallyError(.productNotFound, "\(productID) is not in the on-device catalog")
        }
        return PurchaseTicket(productID: productID)
    }

    public func abandon(_ ticket: PurchaseTicket, reason: String) async throws(TallyError) {}

    public func deliver(_ transaction: StoreTransaction, ticket: PurchaseTicket?) async throws(TallyError) -> DeliveryReceipt {
        let payload = try await verified(transaction)
        guard let product = catalog.product(payload.productID ?? "") else {
            // Not finished, so the store keeps it until an app version that knows the product delivers it.
            throw TallyError(.productNotFound, "\(payload.productID ?? "?") is not in the on-device catalog")
        }
        let wall = now(), clock = clock
        return try await database.write { executor in
            let time = try await clock.millis(in: executor, wall: wall)
            try await Self.expireReservations(executor, now: time)
            var granted: [Amount] = []
            var replayed: Bool
            if payload.revocationDate != nil {
                replayed = try await !Self.revoke(executor, payload: payload, evidence: transaction.evidence, time: time)
            } else {
                replayed = try await !Self.record(executor, payload: payload, evidence: transaction.evidence, time: time)
                if !replayed {
                    granted = try await Self.grant(executor, product: product, payload: payload, time: time)
                } else {
                    granted = try await Self.grants(executor, transactionID: payload.transactionID ?? "")
                }
            }
            return DeliveryReceipt(
                transactionID: payload.transactionID ?? "", productID: product.id, granted: granted,
                balances: try await Self.balances(executor), entitlements: try await Self.entitlements(executor, catalog: catalog, now: time),
                replayed: replayed)
        }
    }

    public func account(storeEntitlements: [StoreTransaction], renewals: [String]) async throws(TallyError) -> AccountSnapshot {
        var renewalInfos: [RenewalInfoPayload] = []
        for jws in renewals {
            // What does not verify, or was signed for another device, is left out: it extends nothing.
            guard case .valid(let verified) = await verifier.verifyRenewalInfo(jws) else { continue }
            if let deviceVerificationID,
                !DeviceVerification.matches(
                    verified.payload.deviceVerification, nonce: verified.payload.deviceVerificationNonce, deviceVerificationID: deviceVerificationID)
            {
                continue
            }
            renewalInfos.append(verified.payload)
        }
        let verifiedRenewals = renewalInfos
        var payloads: [(TransactionPayload, TransactionEvidence)] = []
        // StoreKit 1's entitlements all carry the same app receipt: it is verified once.
        var receipts: [String: AppReceipt] = [:]
        for transaction in storeEntitlements {
            // What does not verify is left out: it unlocks nothing.
            if let payload = try? await verified(transaction, receipts: &receipts), catalog.product(payload.productID ?? "") != nil {
                payloads.append((payload, transaction.evidence))
            }
        }
        let recorded = payloads
        let wall = now(), clock = clock
        return try await database.write { executor in
            let time = try await clock.millis(in: executor, wall: wall)
            try await Self.expireReservations(executor, now: time)
            for (payload, evidence) in recorded where payload.revocationDate == nil && payload.type != .consumable {
                try await Self.record(executor, payload: payload, evidence: evidence, time: time)
            }
            for renewal in verifiedRenewals { try await Self.recordRenewal(executor, renewal) }
            return AccountSnapshot(
                balances: try await Self.balances(executor), entitlements: try await Self.entitlements(executor, catalog: catalog, now: time))
        }
    }

    public func spend(_ order: SpendOrder) async throws(TallyError) -> SpendResponse {
        try validate(currency: order.currency, amount: order.amount, key: order.idempotencyKey)
        let wall = now(), clock = clock
        return try await database.write { executor in
            let time = try await clock.millis(in: executor, wall: wall)
            try await Self.expireReservations(executor, now: time)
            if let spent = try await executor.fetchOne(SpendRow.self, "SELECT * FROM ledger_spends WHERE idempotency_key = \(order.idempotencyKey)") {
                guard spent.currency == order.currency, spent.amount == order.amount else {
                    throw TallyError(.invalidRequest, "idempotency key \(order.idempotencyKey) was used for another spend")
                }
                return SpendResponse(
                    spendID: order.idempotencyKey, currency: order.currency, amount: order.amount, fromAllowance: 0,
                    fromBalance: order.amount, balance: try await Self.balance(executor, order.currency), replayed: true)
            }
            guard
                try await Self.credits(executor, time: time).spend(
                    Self.holder, order.currency, amount: order.amount, operation: order.idempotencyKey, reference: order.reference)
            else {
                let available = try await Self.balance(executor, order.currency).available
                throw TallyError(
                    .insufficientCredits, "\(order.amount) \(order.currency) asked, \(available) available", currency: order.currency,
                    available: available)
            }
            try await executor.execute(
                """
                INSERT INTO ledger_spends (idempotency_key, currency, amount, reference, created_at)
                VALUES (\(order.idempotencyKey), \(order.currency), \(order.amount), \(order.reference), \(time))
                """)
            return SpendResponse(
                spendID: order.idempotencyKey, currency: order.currency, amount: order.amount, fromAllowance: 0,
                fromBalance: order.amount, balance: try await Self.balance(executor, order.currency), replayed: false)
        }
    }

    public func reserve(_ order: ReservationOrder) async throws(TallyError) -> Reservation {
        try validate(currency: order.currency, amount: order.amount, key: order.idempotencyKey)
        guard (1...86_400).contains(order.ttlSeconds) else {
            throw TallyError(.invalidRequest, "ttl_seconds must be between 1 and 86400")
        }
        let wall = now(), clock = clock
        return try await database.write { executor in
            let time = try await clock.millis(in: executor, wall: wall)
            try await Self.expireReservations(executor, now: time)
            if let row = try await executor.fetchOne(
                ReservationRow.self, "SELECT * FROM ledger_reservations WHERE idempotency_key = \(order.idempotencyKey)")
            {
                guard row.currency == order.currency, row.amount == order.amount else {
                    throw TallyError(.invalidRequest, "idempotency key \(order.idempotencyKey) was used for another reservation")
                }
                return try await Self.reservation(executor, row, replayed: true)
            }
            guard try await Self.credits(executor, time: time).hold(Self.holder, order.currency, amount: order.amount) else {
                let available = try await Self.balance(executor, order.currency).available
                throw TallyError(
                    .insufficientCredits, "\(order.amount) \(order.currency) asked, \(available) available", currency: order.currency,
                    available: available)
            }
            let id = "res_" + UUID().uuidString.lowercased()
            let expiresAt = time + order.ttlSeconds * 1000
            try await executor.execute(
                """
                INSERT INTO ledger_reservations (id, idempotency_key, currency, amount, status, reference, expires_at, created_at)
                VALUES (\(id), \(order.idempotencyKey), \(order.currency), \(order.amount), \(ReservationStatus.held), \(order.reference),
                    \(expiresAt), \(time))
                """)
            return try await Self.reservation(executor, id: id, replayed: false)
        }
    }

    public func commit(reservationID: String, used: Int64) async throws(TallyError) -> Reservation {
        guard used >= 0 else { throw TallyError(.invalidRequest, "used must not be negative") }
        let wall = now(), clock = clock
        return try await database.write { executor in
            let time = try await clock.millis(in: executor, wall: wall)
            let row = try await Self.reservationRow(executor, reservationID, now: time)
            let (status, amount) = (row.status, row.amount)
            if status == .committed, row.used == used { return try await Self.reservation(executor, row, replayed: true) }
            guard status == .held else { throw TallyError(.reservationClosed, "reservation \(reservationID) is \(status)") }
            guard used <= amount else { throw TallyError(.invalidRequest, "used \(used) is more than the \(amount) reserved") }
            try await Self.settle(executor, row, used: used, status: .committed, time: time)
            return try await Self.reservation(executor, id: reservationID, replayed: false)
        }
    }

    /// A reservation as it stands once the holds expired by `time` have been returned.
    private static func reservationRow(
        _ executor: any SQLExecutor, _ reservationID: String, now time: Int64
    ) async throws -> ReservationRow {
        try await expireReservations(executor, now: time)
        guard let row = try await executor.fetchOne(ReservationRow.self, "SELECT * FROM ledger_reservations WHERE id = \(reservationID)") else {
            throw TallyError(.invalidRequest, "no reservation \(reservationID)")
        }
        return row
    }

    public func release(reservationID: String) async throws(TallyError) -> Reservation {
        let wall = now(), clock = clock
        return try await database.write { executor in
            let time = try await clock.millis(in: executor, wall: wall)
            let row = try await Self.reservationRow(executor, reservationID, now: time)
            let status = row.status
            if status == .released || status == .expired { return try await Self.reservation(executor, row, replayed: true) }
            guard status == .held else { throw TallyError(.reservationClosed, "reservation \(reservationID) is \(status)") }
            try await Self.settle(executor, row, used: 0, status: .released, time: time)
            return try await Self.reservation(executor, id: reservationID, replayed: false)
        }
    }

    // MARK: - Audit

    public func localAccount() async throws(TallyError) -> AccountSnapshot? {
        try await account(storeEntitlements: [])
    }

    /// Every lot (one per purchase and currency) with what is left of it, and every
    /// consumption with the lots it was taken from, oldest first; nothing here is ever removed.
    public func creditHistory(currency: String?) async throws(TallyError) -> CreditHistory {
        try await database.read { executor in
            let acquisitions = try await executor.fetchAll(
                LotRow.self,
                """
                SELECT \(LotRow.selection) FROM lots l LEFT JOIN ledger_purchases p ON p.transaction_id = l.transaction_id
                WHERE l.user_id = \(Self.holder) AND (\(currency) IS NULL OR l.currency = \(currency)) ORDER BY acquired_at, l.id
                """
            ).map { lot in
                CreditHistory.Acquisition(
                    transactionID: lot.transactionID, currency: lot.currency, amount: lot.granted, acquiredAt: JournalTime.date(lot.acquiredAt),
                    remaining: lot.remaining)
            }
            // What each consumption took from which lot: its takes, under its key.
            var sources: [String: [CreditHistory.Source]] = [:]
            for row in try await executor.fetchAll(
                SourceRow.self,
                """
                SELECT t.operation_id, l.transaction_id, COALESCE(p.purchase_date, l.created_at) AS acquired_at, t.amount AS taken
                FROM lot_takes t JOIN lots l ON l.id = t.lot_id LEFT JOIN ledger_purchases p ON p.transaction_id = l.transaction_id
                WHERE t.kind = \(LedgerEntryKind.spend) AND (\(currency) IS NULL OR l.currency = \(currency)) ORDER BY t.id
                """)
            {
                guard let operation = row.operationID else { continue }
                sources[operation, default: []].append(
                    CreditHistory.Source(transactionID: row.transactionID, acquiredAt: JournalTime.date(row.acquiredAt), amount: row.taken))
            }
            let consumptions = try await executor.fetchAll(
                SpendRow.self, "SELECT * FROM ledger_spends WHERE \(currency) IS NULL OR currency = \(currency) ORDER BY created_at, rowid"
            ).map { spend in
                CreditHistory.Consumption(
                    id: spend.idempotencyKey, currency: spend.currency, amount: spend.amount, reference: spend.reference,
                    date: JournalTime.date(spend.createdAt), sources: sources[spend.idempotencyKey] ?? [])
            }
            return CreditHistory(acquisitions: acquisitions, consumptions: consumptions)
        }
    }

    /// Whether every balance agrees with the ledger's entries and lots (for tests and diagnostics).
    public func balancesMatchEntries() async throws(TallyError) -> Bool {
        try await database.read { executor in try await CreditLedger.consistent(executor, holder: Self.holder) }
    }

    // MARK: - Verification

    /// Verifies the app's own purchase as the ledger verifies transactions: the JWS against its
    /// verifier and, when it knows the device, StoreKit 2's device binding; the app receipt
    /// against its receipt verifier and the device's identifier.
    /// - Throws: ``TallyError`` `verification_failed` (or `verification_unavailable` when a check
    ///   could not be made, and may be retried).
    public func appPurchase(_ evidence: TransactionEvidence) async throws(TallyError) -> AppPurchase {
        switch evidence {
        case .jws(let jws):
            let payload = try Self.payload(of: await verifier.verifyAppTransaction(jws))
            if let deviceVerificationID,
                !DeviceVerification.matches(payload.deviceVerification, nonce: payload.deviceVerificationNonce, deviceVerificationID: deviceVerificationID)
            {
                throw TallyError(.verificationFailed, "the app transaction was signed for another device (its deviceVerification does not match)")
            }
            return AppPurchase(payload)
        case .receipt(let receipt):
            guard let receiptVerifier else {
                throw TallyError(.verificationFailed, "an app receipt arrived and the ledger has no receipt verifier", detail: Self.noReceiptVerifier)
            }
            return AppPurchase(try Self.payload(of: await receiptVerifier.verify(base64: receipt, deviceIdentifier: deviceIdentifier)))
        }
    }

    /// The transaction as its verified evidence describes it.
    private func verified(_ transaction: StoreTransaction) async throws(TallyError) -> TransactionPayload {
        var receipts: [String: AppReceipt] = [:]
        return try await verified(transaction, receipts: &receipts)
    }

    /// The same, reusing receipts verified earlier in `receipts` and adding the one verified now.
    private func verified(_ transaction: StoreTransaction, receipts: inout [String: AppReceipt]) async throws(TallyError) -> TransactionPayload {
        switch transaction.evidence {
        case .jws(let jws):
            let payload: TransactionPayload
            do {
                payload = try Self.payload(of: await verifier.verifyTransaction(jws))
            } catch {
                // The transaction's id, for support: the customer paid and it was refused.
                throw TallyError(error.code, "transaction \(transaction.id): \(error.reason)", detail: error.detail)
            }
            if let deviceVerificationID,
                !DeviceVerification.matches(payload.deviceVerification, nonce: payload.deviceVerificationNonce, deviceVerificationID: deviceVerificationID)
            {
                throw TallyError(.verificationFailed, "transaction \(transaction.id) was signed for another device (its deviceVerification does not match)")
            }
            return payload
        case .receipt(let receipt):
            guard let receiptVerifier else {
                throw TallyError(.verificationFailed, "an app receipt arrived and the ledger has no receipt verifier", detail: Self.noReceiptVerifier)
            }
            let verified: AppReceipt
            if let known = receipts[receipt] {
                verified = known
            } else {
                verified = try Self.payload(of: await receiptVerifier.verify(base64: receipt, deviceIdentifier: deviceIdentifier))
                receipts[receipt] = verified
            }
            guard let purchase = verified.inAppPurchases.last(where: { $0.transactionID == transaction.id }) else {
                throw TallyError(.verificationFailed, "the verified app receipt does not list transaction \(transaction.id)")
            }
            return TransactionPayload(purchase, of: verified)
        }
    }

    private static func payload<Payload>(of result: VerificationResult<Verified<Payload>>) throws(TallyError) -> Payload {
        switch result {
        case .valid(let verified):
            return verified.payload
        case .invalid(let failure) where failure.isRetryable:
            throw TallyError(.verificationUnavailable, failure.description, detail: failure.code.rawValue)
        case .invalid(let failure):
            throw TallyError(.verificationFailed, failure.description, detail: failure.code.rawValue)
        }
    }

    private func validate(currency: String, amount: Int64, key: String) throws(TallyError) {
        guard amount > 0 else { throw TallyError(.invalidRequest, "amount must be more than zero") }
        guard !key.isEmpty, key.utf8.count <= 128 else { throw TallyError(.invalidRequest, "the idempotency key must be 1 to 128 bytes") }
        guard catalog.products.contains(where: { $0.grants.contains { $0.currency == currency } }) else {
            throw TallyError(.invalidRequest, "no product grants \(currency)")
        }
    }
}

/// Milliseconds since 1970, as the device's tables store times.
enum JournalTime {
    static func millis(_ date: Date) -> Int64 { EpochMilliseconds.of(date) }
    static func date(_ millis: Int64) -> Date { EpochMilliseconds.date(millis) }
    /// Seconds as whole milliseconds, clamped like times.
    static func millis(seconds: TimeInterval) -> Int64 { EpochMilliseconds.of(Date(timeIntervalSince1970: seconds)) }
}
