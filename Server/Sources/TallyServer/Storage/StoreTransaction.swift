import Foundation
import TallyCore
import TallySQL
import TallyVerify

/// A store transaction as Tally records it: what its grant and its events need, had once from
/// the verified payload (its first delivery) or from its row.
struct StoreTransaction {
    /// The kind recorded for a product of a type this version does not know.
    static let unrecognizedKind = ProductKind(rawValue: "unknown")

    var transactionID: String
    var originalTransactionID: String
    /// Its owner, once known.
    var userID: String?
    /// The owner's app user id, for events.
    var appUserID: String?
    var productID: String
    var kind: ProductKind
    var quantity: Int64
    var environment: String
    /// Epoch milliseconds.
    var expiresAt: Int64?
    var price: Int64?
    var currency: String?
    var storefront: String?
    var revoked: Bool
    /// Whether its grant was claimed.
    var granted: Bool
    /// What it granted; nil until it is granted.
    var grants: [Amount]?
    /// The first answer to a client, kept for replays.
    var response: String?

    /// A transaction about to be recorded for the first time, as its row will say.
    init(_ payload: TransactionPayload, kind: ProductKind, userID: String?, appUserID: String?) {
        transactionID = payload.transactionID ?? ""
        originalTransactionID = payload.originalTransactionID ?? transactionID
        self.userID = userID
        self.appUserID = appUserID
        productID = payload.productID ?? ""
        self.kind = kind
        quantity = Int64(max(1, payload.quantity ?? 1))
        environment = payload.environment?.rawValue ?? "unknown"
        expiresAt = payload.expiresDate.map(SQLStorage.millis)
        price = payload.price
        currency = payload.currency
        storefront = payload.storefront
        revoked = payload.revocationDate != nil
        granted = false
    }

    /// What an event says of it: its user, product, environment and price.
    var event: TallyEventData {
        var data = TallyEventData(userID: userID)
        data.appUserID = appUserID
        data.transactionID = transactionID
        data.originalTransactionID = originalTransactionID
        data.productID = productID
        data.productKind = kind.rawValue
        data.quantity = quantity
        data.environment = environment
        data.price = price
        data.priceCurrency = currency
        data.storefront = storefront
        data.expiresAt = expiresAt.map(SQLStorage.date)
        return data
    }
}

extension StoreTransaction: SQLRowDecodable {
    /// The columns of `store_transactions`, named once for every reader of the table.
    enum Columns {
        static let transactionID = SQLColumn("transaction_id")
        static let originalTransactionID = SQLColumn("original_transaction_id")
        static let userID = SQLColumn("user_id")
        static let productID = SQLColumn("product_id")
        static let productKind = SQLColumn("product_kind")
        static let quantity = SQLColumn("quantity")
        static let environment = SQLColumn("environment")
        static let appAccountToken = SQLColumn("app_account_token")
        static let purchaseDate = SQLColumn("purchase_date")
        static let expiresDate = SQLColumn("expires_date")
        static let price = SQLColumn("price")
        static let currency = SQLColumn("currency")
        static let storefront = SQLColumn("storefront")
        static let revoked = SQLColumn("revoked")
        static let revocationEventAt = SQLColumn("revocation_event_at")
        static let revocationReason = SQLColumn("revocation_reason")
        static let granted = SQLColumn("granted")
        static let grantsJSON = SQLColumn("grants_json")
        static let responseJSON = SQLColumn("response_json")
        static let receivedAt = SQLColumn("received_at")
        static let subscriptionGroup = SQLColumn("subscription_group")
        static let ownership = SQLColumn("ownership")
        static let evidenceKind = SQLColumn("evidence_kind")
        static let evidence = SQLColumn("evidence")
        /// The owner's, from `users`, when the query joins it (``PurchaseStore/stored(_:_:)``).
        static let appUserID = SQLColumn("app_user_id")
    }

    /// A row of `store_transactions` joined with its owner's `app_user_id`
    /// (``PurchaseStore/stored(_:_:)`` reads it so); without that column it throws.
    init(row: SQLRow) throws(SQLDatabaseError) {
        transactionID = try row.text(Columns.transactionID)
        originalTransactionID = try row.text(Columns.originalTransactionID)
        userID = try row.optionalText(Columns.userID)
        appUserID = try row.optionalText(Columns.appUserID)
        productID = try row.text(Columns.productID)
        kind = ProductKind(rawValue: try row.text(Columns.productKind))
        quantity = try row.int(Columns.quantity)
        environment = try row.text(Columns.environment)
        expiresAt = try row.optionalInt(Columns.expiresDate)
        price = try row.optionalInt(Columns.price)
        currency = try row.optionalText(Columns.currency)
        storefront = try row.optionalText(Columns.storefront)
        revoked = try row.bool(Columns.revoked)
        granted = try row.bool(Columns.granted)
        grants = try Self.amounts(row, Columns.grantsJSON)
        response = try row.optionalText(Columns.responseJSON)
    }

    /// The amounts a grant recorded as JSON in `column`; nil when it is null.
    static func amounts(_ row: SQLRow, _ column: SQLColumn) throws(SQLDatabaseError) -> [Amount]? {
        guard let text = try row.optionalText(column) else { return nil }
        do {
            return try SQLStorage.decode([Amount].self, text)
        } catch {
            throw SQLDatabaseError(.decoding, "column \(column.key) is not a list of amounts: \(error)")
        }
    }
}
