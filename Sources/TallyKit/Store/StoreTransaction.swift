public import Foundation
public import TallyCore

/// A transaction as the store hands it out: its JWS, and the payload read from it.
///
/// The payload is read without verifying the signature: it routes the transaction (which
/// product, which quantity). What credits it is decided on verified data only, by
/// ``OnDeviceLedger`` or by the Tally server.
public struct StoreTransaction: Sendable, Hashable, Identifiable {
    /// The compact JWS (`VerificationResult.jwsRepresentation` in StoreKit).
    public let jws: String
    /// The payload inside ``jws``, not verified.
    public let payload: TransactionPayload

    /// Reads the payload of a JWS.
    /// - Parameter jws: a compact JWS of a transaction.
    /// - Throws: ``TallyError`` `verification_failed` when it is not a JWS with a transaction payload.
    public init(jws: String) throws(TallyError) {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let bytes = Base64.decode(segments[1].utf8, alphabet: .url) else {
            throw TallyError(.verificationFailed, "the store's transaction is not a compact JWS")
        }
        do {
            payload = try AppStoreJSON.decode(TransactionPayload.self, from: bytes)
        } catch {
            throw TallyError(.verificationFailed, "the store's transaction payload does not decode: \(error)")
        }
        guard payload.transactionID?.isEmpty == false, payload.productID?.isEmpty == false else {
            throw TallyError(.verificationFailed, "the store's transaction has no transaction or product id")
        }
        self.jws = jws
    }

    /// The transaction identifier.
    public var id: String { payload.transactionID ?? "" }
    /// The identifier of the first transaction of a subscription (the transaction's own for others).
    public var originalID: String { payload.originalTransactionID ?? id }
    /// The product identifier.
    public var productID: String { payload.productID ?? "" }
    /// Units bought (consumables may be bought 1 to 10 at a time).
    public var quantity: Int { max(1, payload.quantity ?? 1) }
    /// Whether the App Store refunded or revoked it.
    public var isRevoked: Bool { payload.revocationDate != nil }
    /// The app account token the purchase carried.
    public var appAccountToken: UUID? { payload.appAccountTokenUUID }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.jws == rhs.jws }
    public func hash(into hasher: inout Hasher) { hasher.combine(jws) }
}
