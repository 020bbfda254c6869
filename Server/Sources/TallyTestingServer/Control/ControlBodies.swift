import Foundation
import Hummingbird
import TallyTesting

/// The answer of an action with nothing to say: `{}`.
struct EmptyBody: ResponseEncodable {}

/// A transaction as the control API shows it: its ids, whether it is finished and revoked,
/// and its signed JWS.
struct TransactionBody: ResponseEncodable {
    var transactionID: String
    var originalTransactionID: String?
    var productID: String
    var finished: Bool?
    var revoked: Bool
    var signedTransaction: String

    init(_ transaction: SimulatedAppStore.SignedTransaction, finished: Bool? = nil) {
        transactionID = transaction.transactionID
        originalTransactionID = transaction.payload.originalTransactionID
        productID = transaction.productID
        self.finished = finished
        revoked = transaction.payload.revocationDate != nil
        signedTransaction = transaction.jws
    }
}
