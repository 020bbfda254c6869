/// The body of a Get Transaction History answer (`GET /inApps/v2/history/{transactionID}`):
/// one page of up to 20 signed transactions.
///
/// ```swift
/// let page = try AppStoreJSON.decoder().decode(HistoryResponse.self, from: body)
/// for jws in page.signedTransactions ?? [] { /* verify each */ }
/// if page.hasMore == true { /* ask again with revision: page.revision */ }
/// ```
public struct HistoryResponse: Codable, Hashable, Sendable {
    /// The token to send as `revision` to get the next page.
    public var revision: String?
    /// Whether the App Store has more transactions than this page holds.
    public var hasMore: Bool?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The app's App Store identifier.
    public var appAppleID: Int64?
    /// The server environment that answered.
    public var environment: AppStoreEnvironment?
    /// The transactions, each a JWS the App Store signed (`JWSTransaction`).
    public var signedTransactions: [String]?

    /// An empty response; set the fields you need.
    public init() {}
}
