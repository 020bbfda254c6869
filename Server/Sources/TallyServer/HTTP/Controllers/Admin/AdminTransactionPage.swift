/// A page of store transactions, newest first.
public struct AdminTransactionPage: Codable, Hashable, Sendable {
    /// The transactions of this page.
    public var transactions: [AdminTransaction]
    /// The `cursor` of the next page; nil on the last.
    public var nextCursor: String?
}
