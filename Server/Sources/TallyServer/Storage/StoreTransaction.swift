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

    /// A row of `store_transactions`, with the owner's `app_user_id` when the query joined it.
    init(_ row: SQLRow) throws {
        transactionID = try row.text("transaction_id")
        originalTransactionID = try row.text("original_transaction_id")
        userID = row.optionalText("user_id")
        appUserID = row.optionalText("app_user_id")
        productID = try row.text("product_id")
        kind = ProductKind(rawValue: try row.text("product_kind"))
        quantity = try row.int("quantity")
        environment = try row.text("environment")
        expiresAt = row.optionalInt("expires_date")
        price = row.optionalInt("price")
        currency = row.optionalText("currency")
        storefront = row.optionalText("storefront")
        revoked = try row.int("revoked") == 1
        granted = try row.int("granted") == 1
        grants = try row.optionalText("grants_json").map { try SQLStorage.decode([Amount].self, $0) }
        response = row.optionalText("response_json")
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
