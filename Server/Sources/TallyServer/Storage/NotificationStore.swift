import Foundation
import TallyCore
import TallySQL
public import TallyVerify

/// App Store Server Notifications, each applied once by its UUID; what Apple's API reports;
/// and the queues of work for that API (consumption answers, the notification catch-up mark,
/// subscriptions to check).
public struct NotificationStore: TransactionalStore {
    /// Where a notification's transaction is recorded, granted or taken back.
    let purchases: PurchaseStore
    var transactions: Transactions { purchases.transactions }
    var catalog: TallyCatalog { purchases.catalog }
    var now: @Sendable () -> Date { transactions.now }
}

extension NotificationStore {
    /// Applies a verified notification once, by its UUID.
    public func apply(_ notification: VerifiedNotification, jws: String) async throws -> NotificationOutcome {
        let payload = notification.payload
        guard let uuid = payload.notificationUUID, !uuid.isEmpty, uuid.count <= 64 else {
            throw StorageError(.invalidRequest, "the notification has no notificationUUID")
        }
        if let transaction = notification.transaction { try PurchaseStore.checkQuantity(transaction.payload) }
        let eventAt = (payload.signedDate ?? now()).timeIntervalSince1970
        let type = payload.notificationType?.rawValue ?? "UNKNOWN"
        let transactionPayload = notification.transaction?.payload
        return try await write { executor, time in
            let inserted = try await executor.execute(
                """
                INSERT INTO notifications (notification_uuid, notification_type, subtype, transaction_id, original_transaction_id,
                    signed_date, environment, outcome, jws, received_at)
                VALUES (\(uuid), \(type), \(payload.subtype?.rawValue), \(transactionPayload?.transactionID), \(transactionPayload?.originalTransactionID), \
                \(payload.signedDate.map(SQLStorage.millis)), \(payload.appIdentity.environment?.rawValue), 'recorded', \(jws), \(time)) ON CONFLICT DO NOTHING
                """)
            guard inserted == 1 else { return .duplicate }

            var outcome = NotificationOutcome.recorded
            var detail: String?
            if let renewal = notification.renewalInfo, let signed = payload.data?.signedRenewalInfo {
                try await saveRenewalInfo(executor, renewal.payload, jws: signed, time: time)
            }
            if let transaction = notification.transaction, let signed = payload.data?.signedTransactionInfo,
                transaction.payload.transactionID != nil
            {
                let recorded = try await purchases.record(executor, time: time, payload: transaction.payload, evidence: .jws(signed), presenter: nil)
                let id = transaction.payload.transactionID!
                if recorded.new { outcome = .applied }
                if recorded.userID == nil { detail = "no user known for this transaction yet: recorded, granted when a user presents it" }
                switch payload.notificationType {
                case .refund?, .revoke?:
                    if try await purchases.revoke(
                        executor, transactionID: id, eventAt: SQLStorage.millis(Date(timeIntervalSince1970: eventAt)),
                        reason: transaction.payload.revocationReason, time: time)
                    {
                        outcome = .applied
                    }
                case .refundReversed?:
                    if try await purchases.reverseRevocation(
                        executor, transactionID: id, eventAt: SQLStorage.millis(Date(timeIntervalSince1970: eventAt)), time: time)
                    {
                        outcome = .applied
                    }
                case .consumptionRequest?:
                    try await recordConsumptionRequest(executor, uuid: uuid, transactionID: id, reason: payload.data?.consumptionRequestReason, time: time)
                    outcome = .applied
                default:
                    try await purchases.emitSubscriptionStatus(executor, time: time, notification: payload, transactionID: id)
                }
            }
            try await executor.execute(
                "UPDATE notifications SET outcome = \(outcome), detail = \(detail) WHERE notification_uuid = \(uuid)")
            return outcome
        }
    }

    /// Keeps the newest renewal info of a subscription (by its signed date), whatever order they come in.
    func saveRenewalInfo(_ executor: WriteContext, _ renewal: RenewalInfoPayload, jws: String, time: Int64) async throws {
        guard let original = renewal.originalTransactionID, let signed = renewal.signedDate else { return }
        // Every owner of the subscription's transactions: its state decides their access.
        for owner in try await executor.query(
            "SELECT DISTINCT user_id FROM store_transactions WHERE original_transaction_id = \(original) AND user_id IS NOT NULL ORDER BY user_id")
        {
            try await purchases.touchEntitlements(executor, user: try owner.text(StoreTransaction.Columns.userID), time: time)
        }
        let autoRenew = renewal.autoRenewStatus.map { Int64($0.rawValue) }
        let intent = renewal.expirationIntent.map { Int64($0.rawValue) }
        try await executor.execute(
            """
            INSERT INTO renewal_infos (original_transaction_id, signed_date, auto_renew, auto_renew_product_id, in_billing_retry,
                grace_expires, expiration_intent, jws)
            VALUES (\(original), \(SQLStorage.millis(signed)), \(autoRenew), \(renewal.autoRenewProductID), \(renewal.isInBillingRetryPeriod), \
            \(renewal.gracePeriodExpiresDate.map(SQLStorage.millis)), \(intent), \(jws))
            ON CONFLICT (original_transaction_id) DO UPDATE SET
                signed_date = excluded.signed_date, auto_renew = excluded.auto_renew, auto_renew_product_id = excluded.auto_renew_product_id,
                in_billing_retry = excluded.in_billing_retry, grace_expires = excluded.grace_expires,
                expiration_intent = excluded.expiration_intent, jws = excluded.jws
            WHERE renewal_infos.signed_date <= excluded.signed_date
            """)
    }

    /// Records what Tally would answer Apple about a consumable's consumption.
    /// What the user paid and was refunded in US dollars (thousandths), from the prices in the
    /// signed transactions Tally keeps; `nil` when one is in another currency or has no price
    /// (an app receipt), since Apple asks for dollars and Tally converts nothing.
    static func lifetimeDollars(_ executor: any SQLExecutor, user: String) async throws -> (purchased: Int64, refunded: Int64)? {
        var purchased: Int64 = 0
        var refunded: Int64 = 0
        typealias Columns = StoreTransaction.Columns
        for row in try await executor.query(
            "SELECT \(Columns.evidenceKind), \(Columns.evidence), \(Columns.revoked) FROM store_transactions WHERE user_id = \(user)")
        {
            guard try row.text(Columns.evidenceKind) == "jws" else { return nil }
            let parts = try row.text(Columns.evidence).split(separator: ".")
            guard parts.count == 3, let bytes = Base64.decode(parts[1].utf8, alphabet: .url),
                let payload = try? AppStoreJSON.decode(TransactionPayload.self, from: bytes), payload.currency == "USD",
                let price = payload.price
            else { return nil }
            purchased += price
            if try row.bool(Columns.revoked) { refunded += price }
        }
        return (purchased, refunded)
    }

    /// Apple's bucket for an amount of US dollars in thousandths.
    static func dollarBucket(_ thousandths: Int64) -> ConsumptionRequest.LifetimeDollars {
        switch thousandths {
        case ...0: .zeroDollars
        case ..<50_000: .oneCentToFortyNineDollarsAndNinetyNineCents
        case ..<100_000: .fiftyDollarsToNinetyNineDollarsAndNinetyNineCents
        case ..<500_000: .oneHundredDollarsToFourHundredNinetyNineDollarsAndNinetyNineCents
        case ..<1_000_000: .fiveHundredDollarsToNineHundredNinetyNineDollarsAndNinetyNineCents
        case ..<2_000_000: .oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents
        default: .twoThousandDollarsOrGreater
        }
    }

    /// Where time is what the app sells (the `seconds` currency), the seconds the user has used,
    /// as Apple's play time bucket; undeclared for an app that does not measure time.
    static func playTime(_ executor: any SQLExecutor, user: String) async throws -> ConsumptionRequest.PlayTime {
        let used = try await executor.query(
            "SELECT COUNT(*) AS entries, COALESCE(SUM(amount), 0) AS total FROM ledger_entries WHERE user_id = \(user) AND currency = 'seconds' AND amount < 0"
        ).first
        guard let used, try used.int(UsageColumns.entries) > 0 else { return .undeclared }
        let seconds = -(try used.int(UsageColumns.total))
        switch seconds {
        case ..<300: return .zeroToFiveMinutes
        case ..<3600: return .fiveToSixtyMinutes
        case ..<21_600: return .oneToSixHours
        case ..<86_400: return .sixHoursToTwentyFourHours
        case ..<345_600: return .oneDayToFourDays
        case ..<1_382_400: return .fourDaysToSixteenDays
        default: return .overSixteenDays
        }
    }

    func recordConsumptionRequest(
        _ executor: any SQLExecutor, uuid: String, transactionID: String,
        reason: ConsumptionRequestReason?, time: Int64
    ) async throws {
        let lots = try await executor.query(
            "SELECT SUM(granted) AS granted, SUM(remaining) AS remaining FROM lots WHERE transaction_id = \(transactionID)"
        ).first
        let granted = try lots?.optionalInt(UsageColumns.granted) ?? 0
        let remaining = try lots?.optionalInt(UsageColumns.remaining) ?? 0
        let transaction = try await executor.query(
            """
            SELECT t.granted, u.app_account_token, u.created_at FROM store_transactions t LEFT JOIN users u ON u.id = t.user_id \
            WHERE t.transaction_id = \(transactionID)
            """
        ).first
        var body = ConsumptionRequest()
        body.customerConsented = false  // Tally cannot know the customer's consent: the app's policy decides before any reply
        body.consumptionStatus = .init(rawValue: granted == 0 ? 0 : remaining == granted ? 1 : remaining == 0 ? 3 : 2)
        body.platform = .init(rawValue: 1)
        body.sampleContentProvided = false
        let token = try transaction?.optionalText(UserRow.Columns.appAccountToken)
        body.deliveryStatus = .init(rawValue: try transaction?.optionalInt(StoreTransaction.Columns.granted) == 1 ? 0 : 5)
        body.appAccountToken = token ?? ""
        if let created = try transaction?.optionalInt(UserRow.Columns.createdAt) {
            let days = (time - created) / 86_400_000
            let tenure: Int32 =
                switch days {
                case ..<3: 1
                case ..<10: 2
                case ..<30: 3
                case ..<90: 4
                case ..<180: 5
                case ..<365: 6
                default: 7
                }
            body.accountTenure = .init(rawValue: tenure)
        } else {
            body.accountTenure = .init(rawValue: 0)
        }
        let owner = try await executor.query("SELECT user_id FROM store_transactions WHERE transaction_id = \(transactionID)")
            .first?.optionalText(StoreTransaction.Columns.userID)
        var dollars: (purchased: Int64, refunded: Int64)?
        body.playTime = .undeclared
        if let owner {
            dollars = try await Self.lifetimeDollars(executor, user: owner)
            body.playTime = try await Self.playTime(executor, user: owner)
        }
        body.lifetimeDollarsPurchased = dollars.map { Self.dollarBucket($0.purchased) } ?? .undeclared
        body.lifetimeDollarsRefunded = dollars.map { Self.dollarBucket($0.refunded) } ?? .undeclared
        body.userStatus = .init(rawValue: token == nil ? 0 : 1)
        let consumption = String(decoding: try AppStoreJSON.encoder().encode(body), as: UTF8.self)
        try await executor.execute(
            """
            INSERT INTO consumption_requests (notification_uuid, transaction_id, reason, consumption_json, created_at)
            VALUES (\(uuid), \(transactionID), \(reason?.rawValue), \(consumption), \(time)) ON CONFLICT DO NOTHING
            """)
    }
}

/// The aliases of the sums a consumption request is worked out from.
private enum UsageColumns {
    /// Ledger entries of used seconds, and their sum.
    static let entries = SQLColumn("entries")
    static let total = SQLColumn("total")
    /// What a transaction's lots granted and what is left of them.
    static let granted = SQLColumn("granted")
    static let remaining = SQLColumn("remaining")
}
