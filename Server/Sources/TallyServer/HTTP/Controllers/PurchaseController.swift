import Hummingbird
import TallyCore
import TallyVerify

/// Purchases a device posts: `POST /v1/me/purchases` (one purchase, optionally paying an
/// order) and `POST /v1/me/restore` (up to 100 signed transactions and the in-app purchases of
/// one app receipt, each delivered on its own). A purchase comes as a signed transaction
/// (StoreKit 2) or as an app receipt with the transaction id to deliver (StoreKit 1). Each is
/// verified, then granted exactly once under its transaction id, whichever form it came in;
/// posting it again, in either form, grants nothing more. With the App Store Server API
/// configured, a bare transaction id is enough: the server asks Apple for the signed
/// transaction and delivers it as if the device had posted it. Unsigned transaction JSON is
/// never taken.
struct PurchaseController {
    let users: UserStore
    let purchases: PurchaseStore
    let checker: SignedDataChecker
    let metrics: Metrics
    let apple: AppStoreServerClient?

    var endpoints: RouteCollection<UserRequestContext> {
        RouteCollection(context: UserRequestContext.self)
            .post("purchases", use: purchase)
            .post("restore", use: restore)
    }

    /// What the transaction granted, or `replayed` with nothing more when it was delivered before.
    func purchase(_ request: Request, context: UserRequestContext) async throws -> PurchaseResponse {
        let body = try await request.decode(as: PurchaseRequest.self, context: context)
        if let order = body.orderID, order.isEmpty || order.unicodeScalars.count > 64 {
            throw TallyAPIError(.invalidRequest, "order_id must be 1 to 64 characters")
        }
        let response: PurchaseResponse
        switch (body.signedTransaction, body.receipt) {
        case (let jws?, nil):
            guard body.transactionID == nil else {
                throw TallyAPIError(.invalidRequest, "transaction_id goes with a receipt; a signed transaction names its own")
            }
            let verified = try await checker.transaction(jws)
            response = try await purchases.deliver(verified, jws: jws, presenter: context.user, orderID: body.orderID)
        case (nil, let receipt?):
            guard let transactionID = body.transactionID else {
                throw TallyAPIError(.invalidRequest, "a receipt needs the transaction_id of the purchase to deliver")
            }
            guard Self.isTransactionID(transactionID) else {
                throw TallyAPIError(.invalidRequest, "transaction_id must be 1 to 20 digits")
            }
            let verified = try await checker.receipt(receipt)
            guard let purchase = verified.payload.inAppPurchases.first(where: { $0.transactionID == transactionID }) else {
                throw TallyAPIError(.transactionNotInReceipt, "the receipt lists no in-app purchase with transaction_id \(transactionID)")
            }
            response = try await purchases.deliver(purchase, from: verified, receiptText: receipt, presenter: context.user, orderID: body.orderID)
        case (nil, nil):
            guard let transactionID = body.transactionID else {
                throw TallyAPIError(.invalidRequest, "the body needs signed_transaction, receipt with transaction_id, or transaction_id")
            }
            guard Self.isTransactionID(transactionID) else {
                throw TallyAPIError(.invalidRequest, "transaction_id must be 1 to 20 digits")
            }
            let found = try await lookUp(transactionID, context: context)
            response = try await purchases.deliver(found.verified, jws: found.jws, presenter: context.user, orderID: body.orderID)
        case (.some, .some):
            throw TallyAPIError(.invalidRequest, "the body has both signed_transaction and receipt; send one")
        }
        if !response.replayed {
            for grant in response.granted { metrics.increment("tally_grants_total", ["currency": grant.currency], by: grant.amount) }
        }
        return response
    }

    /// Each transaction's outcome (the signed transactions in order, then the receipt's in-app
    /// purchases in its order), then the balances and entitlements after all of them. A receipt
    /// that does not verify refuses the whole restore before anything is delivered.
    func restore(_ request: Request, context: UserRequestContext) async throws -> RestoreResponse {
        let body = try await request.decode(as: RestoreRequest.self, context: context)
        guard body.signedTransactions.count <= 100 else {
            throw TallyAPIError(.invalidRequest, "restore at most 100 transactions at a time")
        }
        var receipt: (text: String, verified: VerifiedReceipt)?
        if let text = body.receipt { receipt = (text, try await checker.receipt(text)) }
        var results: [RestoreResponse.Item] = []
        for jws in body.signedTransactions {
            results.append(
                await restoreItem(transactionID: nil, context: context) {
                    try await purchases.deliver(try await checker.transaction(jws), jws: jws, presenter: context.user, orderID: nil)
                })
        }
        if let (text, verified) = receipt {
            var seen = Set<String>()
            for purchase in verified.payload.inAppPurchases {
                guard let transactionID = purchase.transactionID, Self.isTransactionID(transactionID) else {
                    let failure = TallyAPIError(.invalidRequest, "the receipt lists an in-app purchase without a well-formed transaction id")
                    results.append(RestoreResponse.Item(transactionID: purchase.transactionID, purchase: nil, error: failure.detail))
                    continue
                }
                // A receipt may list a transaction twice; it is delivered once.
                guard seen.insert(transactionID).inserted else { continue }
                results.append(
                    await restoreItem(transactionID: transactionID, context: context) {
                        try await purchases.deliver(purchase, from: verified, receiptText: text, presenter: context.user, orderID: nil)
                    })
            }
        }
        let account = try await users.account(user: context.user)
        return RestoreResponse(results: results, balances: account.balances, entitlements: account.entitlements)
    }

    /// One transaction of a restore. Each is its own database transaction: those delivered
    /// stand, a failure is reported in its item, and the restore goes on.
    func restoreItem(transactionID: String?, context: UserRequestContext, _ deliver: () async throws -> PurchaseResponse) async -> RestoreResponse.Item {
        do {
            let response = try await deliver()
            return RestoreResponse.Item(transactionID: response.transactionID, purchase: response, error: nil)
        } catch let error as TallyAPIError {
            return RestoreResponse.Item(transactionID: transactionID, purchase: nil, error: error.detail)
        } catch let error as StorageError {
            return RestoreResponse.Item(transactionID: transactionID, purchase: nil, error: TallyAPIError(error).detail)
        } catch {
            context.logger.error("restore item failed", metadata: ["error": "\(error)"])
            let failure = TallyAPIError(.internalError, "this transaction could not be delivered; retry")
            return RestoreResponse.Item(transactionID: transactionID, purchase: nil, error: failure.detail)
        }
    }

    /// The signed transaction Apple has under `transactionID`, verified, in the API's terms when
    /// it cannot be had.
    func lookUp(_ transactionID: String, context: UserRequestContext) async throws -> AppStoreServerClient.SignedTransaction {
        guard let apple else {
            throw TallyAPIError(
                .appleNotConfigured, "this server does not ask Apple (no App Store Server API key): post signed_transaction or receipt")
        }
        do {
            return try await apple.transactionInfo(transactionID)
        } catch {
            context.logger.notice("App Store Server API lookup failed", metadata: ["transaction_id": "\(transactionID)", "error": "\(error)"])
            switch error.kind {
            case .notFound:
                throw TallyAPIError(.transactionNotFound, "the App Store has no transaction \(transactionID)")
            case .invalidAnswer where error.verification != nil:
                let failure = error.verification!
                metrics.increment("tally_verification_failures_total", ["code": failure.code.rawValue])
                var refusal = TallyAPIError(.verificationFailed, "the transaction Apple returned did not verify: \(failure.code.rawValue)")
                refusal.verificationCode = failure.code.rawValue
                throw refusal
            default:
                throw TallyAPIError(.appleUnavailable, "the App Store Server API did not answer as it should; retry later")
            }
        }
    }

    /// The shape of App Store transaction identifiers: 1 to 20 ASCII digits (Xcode's are `0`, `1`, …).
    static func isTransactionID(_ text: String) -> Bool {
        (1...20).contains(text.utf8.count) && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
