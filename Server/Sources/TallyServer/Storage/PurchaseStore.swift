import Foundation
public import TallyCore
import TallyLedger
import TallySQL
public import TallyVerify

/// Orders and store transactions: each transaction recorded once and granted once to its owner,
/// from whichever form it arrives in (a client's JWS or app receipt, a notification, Apple's
/// API), and taken back by a refund.
public struct PurchaseStore: TransactionalStore {
    let transactions: Transactions
    let catalog: TallyCatalog
}

extension PurchaseStore {
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
                    executor, transactionID: transactionID, eventAt: SQLStorage.millis(payload.signedDate ?? revokedAt),
                    reason: payload.revocationReason, time: time)
                return try await answer(
                    executor, user: presenter.id, transactionID: transactionID, productID: productID, granted: [],
                    replayed: !recorded.firstDelivery && !applied, time: time)
            }
            if !recorded.firstDelivery, let stored = recorded.response {
                // A replay answers what the first delivery answered.
                var first = try SQLStorage.decode(PurchaseResponse.self, stored)
                first.replayed = true
                return first
            }
            if let answer = recorded.answer { return answer }
            let response = try await answer(
                executor, user: presenter.id, transactionID: transactionID, productID: productID, granted: recorded.granted,
                replayed: !recorded.firstDelivery, time: time)
            // The first answer to a client is kept, so that replays repeat it.
            var first = response
            first.replayed = false
            let firstJSON = SQLStorage.encode(first)
            try await executor.execute(
                "UPDATE store_transactions SET response_json = \(firstJSON) WHERE transaction_id = \(transactionID) AND response_json IS NULL")
            return response
        }
    }

    /// The answer to a client's delivery: what it granted, and the account as it is now.
    private func answer(
        _ executor: WriteContext, user: String, transactionID: String, productID: String, granted: [Amount], replayed: Bool, time: Int64
    ) async throws -> PurchaseResponse {
        let (balances, access) = try await accounts.summary(executor, user: user, time: time)
        return PurchaseResponse(
            transactionID: transactionID, productID: productID, granted: granted, balances: balances, entitlements: access.entitlements,
            replayed: replayed)
    }

    /// What recording a transaction came to.
    struct Recorded {
        /// What the transaction granted (now or before).
        var granted: [Amount]
        /// This call granted it (a client's first delivery); false for a replay.
        var firstDelivery: Bool
        var userID: String?
        /// This call recorded it: it was not known before.
        var new: Bool
        /// The answer the first delivery to a client gave, kept for replays.
        var response: String?
        /// The answer to this delivery, when it was written with the row.
        var answer: PurchaseResponse?
    }

    /// A recorded transaction with its owner's app user id, as events tell it; nil when unknown.
    static func stored(_ executor: any SQLExecutor, _ transactionID: String) async throws -> StoreTransaction? {
        try await executor.fetchOne(
            StoreTransaction.self,
            "SELECT t.*, u.app_user_id FROM store_transactions t LEFT JOIN users u ON u.id = t.user_id WHERE t.transaction_id = \(transactionID)")
    }

    /// A recorded transaction (as ``stored(_:_:)`` reads it) and the user whose app account
    /// token is `token`, in one statement: the two reads a new transaction starts with.
    static func stored(_ executor: any SQLExecutor, _ transactionID: String, tokenOwner token: String?) async throws -> Known {
        try await executor.fetchOne(
            Known.self,
            """
            SELECT t.*, u.app_user_id, o.id AS \(Known.tokenUserID), o.app_user_id AS \(Known.tokenAppUserID) FROM (SELECT 1 AS one) q
            LEFT JOIN store_transactions t ON t.transaction_id = \(transactionID)
            LEFT JOIN users u ON u.id = t.user_id
            LEFT JOIN users o ON o.app_account_token = \(token)
            """) ?? Known(transaction: nil, tokenOwner: nil)
    }

    /// What ``stored(_:_:tokenOwner:)`` read.
    struct Known: SQLRowDecodable {
        static let tokenUserID = SQLColumn("token_user_id")
        static let tokenAppUserID = SQLColumn("token_app_user_id")

        /// The transaction, when it was recorded before.
        var transaction: StoreTransaction?
        /// The user whose app account token the transaction carries, when there is one.
        var tokenOwner: Owner?

        init(transaction: StoreTransaction?, tokenOwner: Owner?) {
            self.transaction = transaction
            self.tokenOwner = tokenOwner
        }

        init(row: SQLRow) throws(SQLDatabaseError) {
            transaction = try row.optionalText(StoreTransaction.Columns.transactionID) == nil ? nil : try StoreTransaction(row: row)
            let tokenUser = try row.optionalText(Self.tokenUserID)
            let tokenAppUser = try row.optionalText(Self.tokenAppUserID)
            tokenOwner = tokenUser.map { Owner(id: $0, appUserID: tokenAppUser) }
        }
    }

    /// Records a transaction once and grants it once its owner is known.
    ///
    /// Owner: the user whose app account token it carries; else the owner of its original
    /// transaction; else the first user who presents it (recorded as such). A transaction that
    /// arrives revoked is recorded and grants nothing.
    func record(_ executor: WriteContext, time: Int64, payload: TransactionPayload, evidence: TransactionEvidence, presenter: User?) async throws -> Recorded {
        let transactionID = payload.transactionID ?? ""
        let token = payload.appAccountToken?.lowercased()
        let known = try await Self.stored(executor, transactionID, tokenOwner: token)
        if let existing = known.transaction {
            return try await recordAgain(executor, existing, presenter: presenter)
        }

        // Who owns it?
        let original = payload.originalTransactionID ?? transactionID
        var owner: Owner?
        var binding: String?
        if let found = known.tokenOwner {
            owner = found
            binding = "app_account_token"
        } else if let found = try await executor.fetchOne(
            Owner.self,
            """
            SELECT t.user_id AS id, u.app_user_id FROM store_transactions t JOIN users u ON u.id = t.user_id
            WHERE t.original_transaction_id = \(original) LIMIT 1
            """)
        {
            owner = found
            binding = "original_transaction"
        } else if let presenter {
            owner = Owner(id: presenter.id, appUserID: presenter.appUserID)
            binding = "first_presenter"
        }
        if let presenter, let owner, owner.id != presenter.id {
            throw StorageError(.transactionBelongsToAnotherUser, "transaction \(transactionID) belongs to another user")
        }

        let product = catalog.product(payload.productID ?? "")
        let kind = product?.kind ?? payload.type.flatMap(ProductKind.init) ?? StoreTransaction.unrecognizedKind
        let transaction = StoreTransaction(payload, kind: kind, userID: owner?.id, appUserID: owner?.appUserID)
        // The grant is claimed in the statement that records it: what it grants is known now.
        let grants = owner != nil && !transaction.revoked ? product.map { Self.grants(of: $0, quantity: transaction.quantity) } : nil
        // The row counts toward the owner's subscriptions as soon as it is there: access before it.
        if let owner, affectsAccess(transaction) {
            try await touchEntitlements(executor, user: owner.id, time: time, transactionID: transactionID)
        }
        let revokedAt = transaction.revoked ? payload.revocationDate.map(SQLStorage.millis) : nil
        // The rollups take in the row: a subscription's from its other periods as they were.
        if kind == .autoRenewable { try await MetricsRollup.note(executor, original: original) }
        var counted = MetricsTransaction(transaction, payload: payload)
        counted.revokedAt = revokedAt
        MetricsRollup.noteNew(executor, counted)
        let grantsJSON = grants.map { SQLStorage.encode($0) }
        // A purchase that gives no access is credited, and a client's answered, before its row
        // is written: the row is written once, with the answer replays repeat (the account the
        // answer reads does not depend on the row), and a client's delivery and a notification
        // of the same transaction take the position's lock and the row's key in one order. One
        // that gives access is answered once its row counts.
        var credited = false
        var answer: PurchaseResponse?
        if let owner, let product, let grants, !affectsAccess(transaction) {
            try await credit(executor, transaction, product: product, grants: grants)
            credited = true
            if presenter != nil {
                answer = try await self.answer(
                    executor, user: owner.id, transactionID: transactionID, productID: transaction.productID, granted: grants,
                    replayed: false, time: time)
            }
        }
        try await executor.execute(
            """
            INSERT INTO store_transactions (transaction_id, original_transaction_id, user_id, binding, product_id, product_kind,
                environment, app_account_token, quantity, purchase_date, expires_date, signed_date, revoked, revocation_event_at,
                revocation_reason, evidence_kind, evidence, received_at, price, currency, storefront, granted, grants_json, ownership,
                subscription_group, response_json)
            VALUES (\(transactionID), \(original), \(owner?.id), \(binding), \(transaction.productID), \(kind),
                \(transaction.environment), \(token), \(transaction.quantity), \(payload.purchaseDate.map(SQLStorage.millis)),
                \(transaction.expiresAt), \(payload.signedDate.map(SQLStorage.millis)), \(transaction.revoked), \(revokedAt),
                \(payload.revocationReason.map { Int64($0.rawValue) }), \(evidence.kind), \(evidence.text), \(time),
                \(transaction.price), \(transaction.currency), \(transaction.storefront), \(grants != nil), \(grantsJSON),
                \(payload.inAppOwnershipType?.rawValue), \(payload.subscriptionGroupIdentifier), \(answer.map { SQLStorage.encode($0) }))
            """)
        guard let owner, let product, let grants else {
            return Recorded(granted: [], firstDelivery: presenter != nil, userID: owner?.id, new: true)
        }
        if !credited { try await credit(executor, transaction, product: product, grants: grants) }
        return Recorded(granted: grants, firstDelivery: presenter != nil, userID: owner.id, new: true, answer: answer)
    }

    /// A transaction recorded before: a replay, or a presenter claiming what a notification
    /// recorded without knowing whose it was.
    private func recordAgain(_ executor: WriteContext, _ existing: StoreTransaction, presenter: User?) async throws -> Recorded {
        let transactionID = existing.transactionID
        guard existing.userID == nil, let presenter else {
            if let presenter, existing.userID != presenter.id {
                throw StorageError(.transactionBelongsToAnotherUser, "transaction \(transactionID) belongs to another user")
            }
            return Recorded(granted: existing.grants ?? [], firstDelivery: false, userID: existing.userID, new: false, response: existing.response)
        }
        // The presenter takes it, unless another presenter did at the same moment (the row lock
        // made this one wait for it). One statement binds it and claims its grant (never
        // claimed before: a grant needs an owner).
        var transaction = existing
        transaction.userID = presenter.id
        transaction.appUserID = presenter.appUserID
        if affectsAccess(transaction) {
            try await touchEntitlements(executor, user: presenter.id, time: executor.now, transactionID: transactionID)
        }
        let product = catalog.product(transaction.productID)
        let grants = transaction.revoked ? nil : product.map { Self.grants(of: $0, quantity: transaction.quantity) }
        let grantsJSON = grants.map { SQLStorage.encode($0) }
        let bound = try await executor.execute(
            """
            UPDATE store_transactions SET user_id = \(presenter.id), binding = 'first_presenter', granted = \(!transaction.revoked),
                grants_json = \(grantsJSON)
            WHERE transaction_id = \(transactionID) AND user_id IS NULL
            """)
        guard bound == 1 else {
            guard let winner = try await Self.stored(executor, transactionID),
                winner.userID == presenter.id
            else {
                throw StorageError(.transactionBelongsToAnotherUser, "transaction \(transactionID) belongs to another user")
            }
            return Recorded(granted: winner.grants ?? [], firstDelivery: false, userID: winner.userID, new: false, response: winner.response)
        }
        guard !transaction.revoked else { return Recorded(granted: [], firstDelivery: false, userID: presenter.id, new: false) }
        if let product, let grants { try await credit(executor, transaction, product: product, grants: grants) }
        return Recorded(granted: grants ?? [], firstDelivery: true, userID: presenter.id, new: false)
    }

    /// Refuses a transaction of a quantity the App Store never sells: it sells 1 to 10 units at
    /// once, and anything else is not a purchase to credit (nor a product × quantity to compute).
    /// - Throws: ``StorageError`` `invalid_request`.
    static func checkQuantity(_ payload: TransactionPayload) throws(StorageError) {
        guard (1...10).contains(payload.quantity ?? 1) else {
            throw StorageError(.invalidRequest, "quantity \(payload.quantity ?? 1) is not 1 to 10")
        }
    }

    /// What a product × quantity grants.
    static func grants(of product: TallyCatalog.Product, quantity: Int64) -> [Amount] {
        product.grants.map { Amount(currency: $0.currency, amount: $0.amount * quantity) }
    }

    /// Grants a recorded transaction that was never granted (a refund reversed before its
    /// owner was known), once: the `granted` flag is set in the statement that checks it.
    /// Returns what it granted; nil when it was granted before or has no owner.
    func grant(_ executor: WriteContext, _ transaction: StoreTransaction) async throws -> [Amount]? {
        guard let userID = transaction.userID else { return nil }
        if affectsAccess(transaction) {
            try await touchEntitlements(executor, user: userID, time: executor.now, transactionID: transaction.transactionID)
        }
        let product = catalog.product(transaction.productID)
        let grants = product.map { Self.grants(of: $0, quantity: transaction.quantity) }
        let grantsJSON = grants.map { SQLStorage.encode($0) }
        let claimed = try await executor.execute(
            "UPDATE store_transactions SET granted = 1, grants_json = \(grantsJSON) WHERE transaction_id = \(transaction.transactionID) AND granted = 0")
        guard claimed == 1, let product, let grants else { return nil }
        try await credit(executor, transaction, product: product, grants: grants)
        return grants
    }

    /// Credits what a claimed grant gives to the transaction's owner and writes its events.
    private func credit(_ executor: WriteContext, _ transaction: StoreTransaction, product: TallyCatalog.Product, grants: [Amount]) async throws {
        guard let userID = transaction.userID else { return }
        let ledger = executor.ledger
        for grant in grants {
            try await ledger.grant(
                userID, grant.currency, amount: grant.amount, kind: .purchase, transaction: transaction.transactionID)
        }
        try await emitGranted(executor, transaction, product: product, grants: grants)
    }

    func fulfil(_ executor: WriteContext, orderID: String, user: User, productID: String, transactionID: String, time: Int64) async throws {
        let order = try await Self.order(executor, user: user, id: orderID, now: time)
        if order.transactionID == transactionID { return }
        // One transaction fulfils one order (UNIQUE in the database): said here, not as a constraint error.
        if try await executor.query("SELECT id FROM orders WHERE transaction_id = \(transactionID)").first != nil {
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
            "UPDATE orders SET status = \(OrderStatus.fulfilled), transaction_id = \(transactionID), updated_at = \(time) WHERE id = \(orderID)")
    }
}

extension PurchaseStore {
    /// Who a transaction belongs to: a user's id and app user id.
    struct Owner: SQLRowDecodable {
        typealias Columns = UserRow.Columns

        let id: String
        let appUserID: String?

        init(id: String, appUserID: String?) {
            self.id = id
            self.appUserID = appUserID
        }

        init(row: SQLRow) throws(SQLDatabaseError) {
            id = try row.text(Columns.id)
            appUserID = try row.optionalText(Columns.appUserID)
        }
    }
}
