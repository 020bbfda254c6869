/// What proves an App Store transaction: the device sends it, and the device's ledger or the
/// server verifies it before anything is credited, then keeps it with the transaction.
///
/// StoreKit 2 signs each transaction (a JWS); StoreKit 1 proves transactions with the app
/// receipt, which lists them all.
public enum TransactionEvidence: Sendable, Hashable {
    /// The compact JWS of the transaction (`VerificationResult.jwsRepresentation` in StoreKit 2).
    case jws(String)
    /// The app receipt in standard base64 (StoreKit 1's `appStoreReceiptURL`), which lists the
    /// transaction among the app's purchases.
    case receipt(String)

    /// `jws` or `receipt`, as databases store it.
    public var kind: String {
        switch self {
        case .jws: "jws"
        case .receipt: "receipt"
        }
    }

    /// The JWS or the receipt's base64.
    public var text: String {
        switch self {
        case .jws(let text), .receipt(let text): text
        }
    }
}
