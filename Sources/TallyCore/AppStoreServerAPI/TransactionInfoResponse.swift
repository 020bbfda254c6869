/// The body of a Get Transaction Info answer (`GET /inApps/v1/transactions/{transactionID}`).
///
/// ```swift
/// let info = try AppStoreJSON.decoder().decode(TransactionInfoResponse.self, from: body)
/// let jws = info.signedTransactionInfo // verify, then decode as TransactionPayload
/// ```
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    /// The transaction, as a JWS the App Store signed (`JWSTransaction`).
    public var signedTransactionInfo: String?

    /// An empty response; set the fields you need.
    public init() {}
}
