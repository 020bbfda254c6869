public import Foundation
public import TallyCore
import TallyVerify

/// A transaction as the store hands it out: the signed evidence of it, and the payload read
/// from that evidence.
///
/// StoreKit 2 signs each transaction (a JWS); StoreKit 1 proves transactions with the app
/// receipt, which lists them all. Either way the payload is read without verifying the
/// signature: it routes the transaction (which product, which quantity). What credits it is
/// decided on verified data only, by ``OnDeviceLedger`` or by the Tally server.
public struct StoreTransaction: Sendable, Hashable, Identifiable {
    /// The signed evidence.
    public let evidence: TransactionEvidence
    /// The transaction as read from ``evidence``, not verified.
    public let payload: TransactionPayload

    /// Reads the payload of a JWS.
    /// - Parameter jws: a compact JWS of a transaction.
    /// - Throws: ``TallyError`` `verification_failed` when it is not a JWS with a transaction payload.
    public init(jws: String) throws(TallyError) {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let bytes = Base64.decode(segments[1].utf8, alphabet: .url) else {
            throw TallyError(.verificationFailed, "the store's transaction is not a compact JWS")
        }
        let payload: TransactionPayload
        do {
            payload = try AppStoreJSON.decode(TransactionPayload.self, from: bytes)
        } catch {
            throw TallyError(.verificationFailed, "the store's transaction payload does not decode: \(error)")
        }
        try self.init(evidence: .jws(jws), payload: payload)
    }

    /// Finds a transaction in an app receipt.
    /// - Parameters:
    ///   - receipt: the app receipt, standard base64.
    ///   - transactionID: the transaction (`SKPaymentTransaction.transactionIdentifier`).
    /// - Throws: ``TallyError`` `verification_failed` when the receipt cannot be read or does
    ///   not list the transaction (StoreKit 1 may update the receipt late: refresh it and try again).
    public init(receipt: String, transactionID: String) throws(TallyError) {
        guard let appReceipt = ReceiptVerifier.unverifiedReceipt(base64: receipt) else {
            throw TallyError(.verificationFailed, "the app receipt is not a readable PKCS#7 receipt")
        }
        guard let purchase = appReceipt.inAppPurchases.last(where: { $0.transactionID == transactionID }) else {
            throw TallyError(.verificationFailed, "the app receipt does not list transaction \(transactionID)")
        }
        try self.init(evidence: .receipt(receipt), payload: TransactionPayload(purchase, of: appReceipt))
    }

    /// Reads a transaction back as the journal stored it.
    /// - Parameters:
    ///   - kind: `TransactionEvidence.kind`.
    ///   - text: `TransactionEvidence.text`.
    ///   - transactionID: the transaction, which a receipt needs to be told.
    init(kind: String, text: String, transactionID: String) throws(TallyError) {
        switch kind {
        case "jws": try self.init(jws: text)
        case "receipt": try self.init(receipt: text, transactionID: transactionID)
        default: throw TallyError(.storageFailed, "the journal holds evidence of an unknown kind '\(kind)'")
        }
    }

    init(evidence: TransactionEvidence, payload: TransactionPayload) throws(TallyError) {
        guard payload.transactionID?.isEmpty == false, payload.productID?.isEmpty == false else {
            throw TallyError(.verificationFailed, "the store's transaction has no transaction or product id")
        }
        self.evidence = evidence
        self.payload = payload
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
    /// The app account token the purchase carried (StoreKit 2; receipts do not carry it).
    public var appAccountToken: UUID? { payload.appAccountTokenUUID }

    // One receipt proves many transactions: the identifier tells them apart.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.evidence == rhs.evidence && lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(evidence)
        hasher.combine(id)
    }
}
