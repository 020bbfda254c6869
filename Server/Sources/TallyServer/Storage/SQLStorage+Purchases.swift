import Foundation
public import TallyCore
import TallySQL
public import TallyVerify

extension SQLStorage {
    /// Records a verified transaction and grants it, once.
    public func deliver(_ transaction: Verified<TransactionPayload>, jws: String, presenter: User, orderID: String?) async throws -> PurchaseResponse {
        try await deliver(transaction.payload, evidence: .jws(jws), presenter: presenter, orderID: orderID)
    }

    /// Records a transaction read from verified data and grants it, once, under its transaction
    /// id, whichever form it came in.
    /// - Parameter evidence: what it was verified from (a JWS, or an app receipt), kept with the
    ///   transaction the first time it is recorded.
    func deliver(_ payload: TransactionPayload, evidence: TransactionEvidence, presenter: User, orderID: String?) async throws -> PurchaseResponse {
        guard let transactionID = payload.transactionID, let productID = payload.productID else {
            throw StorageError(.invalidRequest, "the transaction has no transactionId or productId")
        }
        guard catalog.product(productID) != nil else {
            throw StorageError(.unknownProduct, "product \(productID) is not in this server's catalog")
        }
        try Self.checkQuantity(payload)
        return try await write { executor, time in
            let recorded = try await record(executor, time: time, payload: payload, evidence: evidence, presenter: presenter)
            if let orderID {
                try await fulfil(executor, orderID: orderID, user: presenter, productID: productID, transactionID: transactionID, time: time)
            }
            if let revokedAt = payload.revocationDate {
                // A refunded transaction re-signed by the App Store is proof of the refund: applied as a REFUND notification would be.
                // Replayed only when neither the transaction nor its refund is news: the client reports a refund
                // this call applied as new.
                let applied = try await revoke(
                    executor, transactionID: transactionID, eventAt: Self.millis(payload.signedDate ?? revokedAt),
                    reason: payload.revocationReason, time: time)
                let (balances, entitlements) = try await summary(executor, user: presenter.id, time: time)
                return PurchaseResponse(
                    transactionID: transactionID, productID: productID, granted: [], balances: balances,
                    entitlements: entitlements, replayed: !recorded.firstDelivery && !applied)
            }
            if !recorded.firstDelivery,
                let stored = try await executor.query(
                    "SELECT response_json FROM store_transactions WHERE transaction_id = ?", [.text(transactionID)]
                ).first?.optionalText("response_json")
            {
                // A replay answers what the first delivery answered.
                var first = try Self.decode(PurchaseResponse.self, stored)
                first.replayed = true
                return first
            }
            let (balances, entitlements) = try await summary(executor, user: presenter.id, time: time)
            let response = PurchaseResponse(
                transactionID: transactionID, productID: productID, granted: recorded.granted,
                balances: balances, entitlements: entitlements, replayed: !recorded.firstDelivery)
            // The first answer to a client is kept, so that replays repeat it.
            var first = response
            first.replayed = false
            try await executor.execute(
                "UPDATE store_transactions SET response_json = ? WHERE transaction_id = ? AND response_json IS NULL",
                [.text(try Self.encode(first)), .text(transactionID)])
            return response
        }
    }

    struct Recorded {
        /// What the transaction granted (now or before).
        var granted: [Amount]
        /// This call granted it (a client's first delivery); false for a replay.
        var firstDelivery: Bool
        var userID: String?
    }

    /// Records a transaction once and grants it once its owner is known.
    ///
    /// Owner: the user whose app account token it carries; else the owner of its original
    /// transaction; else the first user who presents it (recorded as such). A transaction that
    /// arrives revoked is recorded and grants nothing.
    func record(_ executor: WriteContext, time: Int64, payload: TransactionPayload, evidence: TransactionEvidence, presenter: User?) async throws -> Recorded {
        let transactionID = payload.transactionID ?? ""
        let original = payload.originalTransactionID ?? transactionID
        let token = payload.appAccountToken?.lowercased()

        if let existing = try await executor.query("SELECT * FROM store_transactions WHERE transaction_id = ?", [.text(transactionID)]).first {
            var owner = existing.optionalText("user_id")
            if owner == nil, let presenter {
                // Recorded before by a notification that could not tell whose it was: the presenter takes it,
                // unless another presenter did at the same moment (the row lock made this one wait for it).
                if affectsAccess(productID: try existing.text("product_id"), kind: try existing.text("product_kind")) {
                    try await touchEntitlements(executor, user: presenter.id, time: time, transactionID: transactionID)
                }
                if try await bind(executor, transactionID: transactionID, to: presenter.id, binding: "first_presenter") == 0 {
                    let winner = try await executor.query(
                        "SELECT user_id FROM store_transactions WHERE transaction_id = ?", [.text(transactionID)]
                    ).first?.optionalText("user_id")
                    guard winner == presenter.id else {
                        throw StorageError(.transactionBelongsToAnotherUser, "transaction \(transactionID) belongs to another user")
                    }
                    return Recorded(granted: try await grantsOf(executor, transactionID: transactionID), firstDelivery: false, userID: winner)
                }
                owner = presenter.id
                if try existing.int("revoked") == 0 {
                    try await grant(
                        executor, time: time, transactionID: transactionID, userID: presenter.id,
                        productID: try existing.text("product_id"), quantity: try existing.int("quantity"))
                    let granted = try await grantsOf(executor, transactionID: transactionID)
                    return Recorded(granted: granted, firstDelivery: true, userID: owner)
                }
            }
            if let presenter, owner != presenter.id {
                throw StorageError(.transactionBelongsToAnotherUser, "transaction \(transactionID) belongs to another user")
            }
            return Recorded(granted: try await grantsOf(executor, transactionID: transactionID), firstDelivery: false, userID: owner)
        }

        // Who owns it?
        var owner: String?
        var binding: String?
        if let token, let row = try await executor.query("SELECT id FROM users WHERE app_account_token = ?", [.text(token)]).first {
            owner = try row.text("id")
            binding = "app_account_token"
        } else if let row = try await executor.query(
            "SELECT user_id FROM store_transactions WHERE original_transaction_id = ? AND user_id IS NOT NULL LIMIT 1", [.text(original)]
        ).first {
            owner = try row.text("user_id")
            binding = "original_transaction"
        } else if let presenter {
            owner = presenter.id
            binding = "first_presenter"
        }
        if let presenter, let owner, owner != presenter.id {
            throw StorageError(.transactionBelongsToAnotherUser, "transaction \(transactionID) belongs to another user")
        }

        let product = catalog.product(payload.productID ?? "")
        let revoked = payload.revocationDate != nil
        // The row counts toward the owner's subscriptions as soon as it is there: access before it.
        if let owner, affectsAccess(productID: payload.productID ?? "", kind: product?.kind.rawValue ?? Self.kind(payload.type)) {
            try await touchEntitlements(executor, user: owner, time: time, transactionID: transactionID)
        }
        try await executor.execute(
            """
            INSERT INTO store_transactions (transaction_id, original_transaction_id, user_id, binding, product_id, product_kind,
                environment, app_account_token, quantity, purchase_date, expires_date, signed_date, revoked, revocation_event_at,
                revocation_reason, evidence_kind, evidence, received_at, price, currency, storefront)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(transactionID), .text(original), .optional(owner), .optional(binding), .text(payload.productID ?? ""),
                .text(product?.kind.rawValue ?? Self.kind(payload.type)), .text(payload.environment?.rawValue ?? "unknown"),
                .optional(token), .int(Int64(max(1, payload.quantity ?? 1))), .optional(payload.purchaseDate.map(Self.millis)),
                .optional(payload.expiresDate.map(Self.millis)), .optional(payload.signedDate.map(Self.millis)),
                .int(revoked ? 1 : 0), .optional(revoked ? payload.revocationDate.map(Self.millis) : nil),
                .optional(payload.revocationReason.map { Int64($0.rawValue) }), .text(evidence.kind), .text(evidence.text),
                .int(time), .optional(payload.price), .optional(payload.currency), .optional(payload.storefront),
            ])
        guard let owner, !revoked, let product else {
            return Recorded(granted: [], firstDelivery: presenter != nil, userID: owner)
        }
        try await grant(
            executor, time: time, transactionID: transactionID, userID: owner, productID: product.productID,
            quantity: Int64(max(1, payload.quantity ?? 1)))
        return Recorded(granted: try await grantsOf(executor, transactionID: transactionID), firstDelivery: presenter != nil, userID: owner)
    }

    static func kind(_ type: AppStoreProductType?) -> String {
        switch type {
        case .consumable?: "consumable"
        case .nonConsumable?: "non_consumable"
        case .nonRenewingSubscription?: "non_renewing"
        case .autoRenewableSubscription?: "auto_renewable"
        default: "unknown"
        }
    }

    @discardableResult
    func bind(_ executor: any SQLExecutor, transactionID: String, to userID: String, binding: String) async throws -> Int {
        try await executor.execute(
            "UPDATE store_transactions SET user_id = ?, binding = ? WHERE transaction_id = ? AND user_id IS NULL",
            [.text(userID), .text(binding), .text(transactionID)])
    }

    /// Refuses a transaction of a quantity the App Store never sells: it sells 1 to 10 units at
    /// once, and anything else is not a purchase to credit (nor a product × quantity to compute).
    /// - Throws: ``StorageError`` `invalid_request`.
    static func checkQuantity(_ payload: TransactionPayload) throws {
        guard (1...10).contains(payload.quantity ?? 1) else {
            throw StorageError(.invalidRequest, "quantity \(payload.quantity ?? 1) is not 1 to 10")
        }
    }

    /// Grants a recorded transaction's product × quantity, once (the `granted` flag is set in
    /// the same statement that checks it).
    func grant(_ executor: WriteContext, time: Int64, transactionID: String, userID: String, productID: String, quantity: Int64) async throws {
        if let product = catalog.product(productID), affectsAccess(productID: productID, kind: product.kind.rawValue) {
            try await touchEntitlements(executor, user: userID, time: time, transactionID: transactionID)
        }
        let claimed = try await executor.execute(
            "UPDATE store_transactions SET granted = 1 WHERE transaction_id = ? AND granted = 0", [.text(transactionID)])
        guard claimed == 1, let product = catalog.product(productID) else { return }
        let ledger = Ledger(executor)
        var grants: [Amount] = []
        for grant in product.grants {
            let amount = grant.amount * quantity
            try await ledger.grant(userID, grant.currency, amount: amount, kind: "purchase", source: "purchase", transaction: transactionID)
            grants.append(Amount(currency: grant.currency, amount: amount))
        }
        try await executor.execute(
            "UPDATE store_transactions SET grants_json = ? WHERE transaction_id = ?", [.text(try Self.encode(grants)), .text(transactionID)])
        try await emitGranted(executor, time: time, transactionID: transactionID, product: product, grants: grants)
    }

    func grantsOf(_ executor: any SQLExecutor, transactionID: String) async throws -> [Amount] {
        guard
            let text = try await executor.query(
                "SELECT grants_json FROM store_transactions WHERE transaction_id = ?", [.text(transactionID)]
            ).first?.optionalText("grants_json")
        else {
            return []
        }
        return try Self.decode([Amount].self, text)
    }

    func fulfil(_ executor: WriteContext, orderID: String, user: User, productID: String, transactionID: String, time: Int64) async throws {
        let order = try await Self.order(executor, user: user, id: orderID, now: time)
        if order.transactionID == transactionID { return }
        // One transaction fulfils one order (UNIQUE in the database): said here, not as a constraint error.
        if try await executor.query("SELECT id FROM orders WHERE transaction_id = ?", [.text(transactionID)]).first != nil {
            throw StorageError(.orderMismatch, "transaction \(transactionID) already fulfilled another order")
        }
        guard order.productID == productID else {
            throw StorageError(.orderMismatch, "order \(orderID) is for \(order.productID), not \(productID)")
        }
        guard [.created, .expired, .failed].contains(order.status) else {
            throw StorageError(.orderMismatch, "order \(orderID) is already fulfilled by another transaction")
        }
        // A payment that arrives for an expired or failed order still fulfils it: the money was taken.
        try await executor.execute(
            "UPDATE orders SET status = 'fulfilled', transaction_id = ?, updated_at = ? WHERE id = ?",
            [.text(transactionID), .int(time), .text(orderID)])
    }
}
