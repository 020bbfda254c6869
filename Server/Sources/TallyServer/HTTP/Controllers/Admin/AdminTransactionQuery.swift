/// Filters of the admin's transaction list: each given filter narrows it.
public struct AdminTransactionQuery: Sendable, Hashable {
    /// consumable, non_consumable, non_renewing or auto_renewable.
    public var type: String?
    /// granted, revoked or unbound.
    public var status: String?
    /// The product bought.
    public var productID: String?
    /// Matches a transaction id, original transaction id or user id exactly.
    public var text: String?
    /// The largest page, 1 to 200.
    public var limit: Int
    /// Return transactions after this position, newest first (from the previous page).
    public var cursor: AdminCursor?

    /// Creates a query; with no filter, every transaction, 50 a page.
    public init(type: String? = nil, status: String? = nil, productID: String? = nil, text: String? = nil, limit: Int = 50, cursor: AdminCursor? = nil) {
        self.type = type
        self.status = status
        self.productID = productID
        self.text = text
        self.limit = limit
        self.cursor = cursor
    }
}
