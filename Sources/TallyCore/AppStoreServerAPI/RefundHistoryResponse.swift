/// The body of a Get Refund History answer (`GET /inApps/v2/refund/lookup/{transactionID}`):
/// one page of up to 20 refunded transactions.
///
/// ```swift
/// let page = try AppStoreJSON.decoder().decode(RefundHistoryResponse.self, from: body)
/// if page.hasMore == true { /* ask again with revision: page.revision */ }
/// ```
public struct RefundHistoryResponse: Codable, Hashable, Sendable {
    /// The refunded transactions, each a JWS the App Store signed (`JWSTransaction`).
    public var signedTransactions: [String]?
    /// The token to send as `revision` to get the next page.
    public var revision: String?
    /// Whether the App Store has more refunded transactions than this page holds.
    public var hasMore: Bool?

    /// An empty response; set the fields you need.
    public init() {}
}
