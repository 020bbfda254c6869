import Crypto
import Foundation
import TallyCore
import TallyVerify

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// A product of the catalog.
    public func product(_ id: String) -> StoreKitConfiguration.Product? {
        configuration.catalog.product(id: id)
    }

    /// Buys a product, as `Product.purchase(options:)`.
    ///
    /// A non-consumable already owned, or the subscription already running, returns its current
    /// transaction without charging again. Buying another subscription of the same group
    /// upgrades at once (higher level) or downgrades at the next renewal.
    /// - Parameters:
    ///   - productID: the product.
    ///   - options: app account token, quantity, offer and the simulated outcome.
    /// - Returns: the transaction, a cancellation, or a pending purchase.
    /// - Throws: ``SimulatedAppStoreError`` for an unknown product, a bad quantity or offer, or a simulated failure.
    public func purchase(
        _ productID: String, options: SimulatedAppStore.PurchaseOptions = SimulatedAppStore.PurchaseOptions()
    ) throws(SimulatedAppStoreError) -> SimulatedAppStore.PurchaseResult {
        guard let product = product(productID) else {
            throw SimulatedAppStoreError(.productUnavailable, "no product \(productID) in the catalog")
        }
        guard (1...10).contains(options.quantity) else {
            throw SimulatedAppStoreError(.invalidQuantity, "quantity \(options.quantity) is not between 1 and 10")
        }
        guard options.quantity == 1 || product.kind == .consumable else {
            throw SimulatedAppStoreError(.invalidQuantity, "only consumables can be bought in quantity")
        }
        if let offerID = options.promotionalOfferID,
            product.subscription?.promotionalOffers.contains(where: { $0.id == offerID }) != true
        {
            throw SimulatedAppStoreError(.invalidOffer, "\(productID) has no promotional offer \(offerID)")
        }

        var outcome = options.outcome
        if outcome == .automatic {
            if let failure = state.settings.purchaseFailure {
                outcome = .failure(failure)
            } else if state.settings.askToBuyEnabled {
                outcome = .askToBuy
            } else if state.settings.interruptedPurchasesEnabled {
                outcome = .interrupted
            } else {
                outcome = .success
            }
        }
        switch outcome {
        case .userCancelled:
            return .userCancelled
        case .failure(let code):
            throw SimulatedAppStoreError(code, "the purchase of \(productID) failed (simulated)")
        case .askToBuy, .interrupted:
            let pending = SimulatedAppStore.PendingPurchase(
                id: nextPendingID(), reason: outcome == .askToBuy ? .askToBuy : .interrupted, productID: productID,
                appAccountToken: options.appAccountToken, quantity: options.quantity,
                promotionalOfferID: options.promotionalOfferID, requestedAt: now)
            state.pending.append(pending)
            try save()
            return .pending(pending)
        case .success, .unverified, .automatic:
            let transaction = try complete(
                product, appAccountToken: options.appAccountToken, quantity: options.quantity, promotionalOfferID: options.promotionalOfferID)
            try save()
            if outcome == .unverified {
                return .success(try unverifiable(transaction))
            }
            return .success(transaction)
        }
    }

    /// The purchases waiting for approval or for an interruption to be resolved.
    public var pendingPurchases: [SimulatedAppStore.PendingPurchase] { state.pending }

    /// Approves an Ask to Buy request: the purchase completes and its transaction arrives through ``updates()``.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown request.
    @discardableResult
    public func approveAskToBuy(_ id: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        try completePending(id, reason: .askToBuy)
    }

    /// Declines an Ask to Buy request: nothing is charged and no transaction is made.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown request.
    public func declineAskToBuy(_ id: String) throws(SimulatedAppStoreError) {
        guard let index = state.pending.firstIndex(where: { $0.id == id && $0.reason == .askToBuy }) else {
            throw SimulatedAppStoreError(.notFound, "no Ask to Buy request \(id)")
        }
        state.pending.remove(at: index)
        try save()
    }

    /// Resolves an interrupted purchase: it completes and its transaction arrives through ``updates()``.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown purchase.
    @discardableResult
    public func resolveInterruptedPurchase(_ id: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        try completePending(id, reason: .interrupted)
    }

    private func completePending(
        _ id: String, reason: SimulatedAppStore.PendingPurchase.Reason
    ) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        guard let index = state.pending.firstIndex(where: { $0.id == id && $0.reason == reason }) else {
            throw SimulatedAppStoreError(.notFound, "no pending purchase \(id)")
        }
        let pending = state.pending[index]
        guard let product = product(pending.productID) else {
            throw SimulatedAppStoreError(.productUnavailable, "no product \(pending.productID) in the catalog")
        }
        let transaction = try complete(
            product, appAccountToken: pending.appAccountToken, quantity: pending.quantity, promotionalOfferID: pending.promotionalOfferID)
        state.pending.removeAll { $0.id == id }
        try save()
        if let device = pending.storeKit1Device.flatMap(DeviceIdentifier.init(hex:)) {
            // A StoreKit 1 payment: the device's receipt lists the purchase once it completes.
            try issueReceipt(for: device)
        }
        publish(transaction)
        return transaction
    }

    // MARK: - Completing a paid purchase

    /// Charges and records the purchase, with its notification; returns the transaction signed now.
    func complete(
        _ product: StoreKitConfiguration.Product, appAccountToken: UUID?, quantity: Int, promotionalOfferID: String?
    ) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        let token = appAccountToken?.uuidString.lowercased()
        switch product.kind {
        case .autoRenewableSubscription:
            return try subscribe(product, appAccountToken: token, promotionalOfferID: promotionalOfferID)
        case .nonConsumable:
            if let owned = state.transactions.last(where: {
                $0.payload.productID == product.id && $0.payload.revocationDate == nil && $0.payload.inAppOwnershipType == .purchased
            }) {
                return try signed(owned)
            }
            fallthrough
        default:
            let record = oneTimeTransaction(product, appAccountToken: token, quantity: quantity)
            state.transactions.append(record)
            let transaction = try signed(record)
            try notify(.oneTimeCharge, subtype: nil, transaction: transaction.payload)
            return transaction
        }
    }

    func oneTimeTransaction(_ product: StoreKitConfiguration.Product, appAccountToken: String?, quantity: Int) -> TransactionRecord {
        let id = nextTransactionID()
        var payload = basePayload(product, transactionID: id, originalTransactionID: id, appAccountToken: appAccountToken)
        payload.quantity = quantity
        payload.price = product.price * Int64(quantity)
        payload.transactionReason = .purchase
        if product.kind == .nonRenewingSubscription {
            payload.type = .nonRenewingSubscription
        }
        return TransactionRecord(payload: payload)
    }

    func basePayload(
        _ product: StoreKitConfiguration.Product, transactionID: String, originalTransactionID: String, appAccountToken: String?
    ) -> TransactionPayload {
        var payload = TransactionPayload()
        payload.transactionID = transactionID
        payload.originalTransactionID = originalTransactionID
        payload.bundleID = configuration.bundleID
        payload.productID = product.id
        payload.purchaseDate = now
        payload.originalPurchaseDate = state.transactions.first { $0.payload.transactionID == originalTransactionID }?.payload.purchaseDate ?? now
        payload.quantity = 1
        payload.type = Self.productType(product.kind)
        payload.appAccountToken = appAccountToken
        payload.inAppOwnershipType = .purchased
        payload.environment = configuration.environment
        payload.storefront = storefront
        payload.storefrontID = storefrontID
        payload.currency = currency
        payload.price = product.price
        payload.appTransactionID = state.appTransactionID
        return payload
    }

    static func productType(_ kind: StoreKitConfiguration.Product.Kind) -> AppStoreProductType {
        switch kind {
        case .consumable: return .consumable
        case .nonConsumable: return .nonConsumable
        case .nonRenewingSubscription: return .nonRenewingSubscription
        default: return .autoRenewableSubscription
        }
    }

    /// The same transaction, signed by a key that is not the certificate's: it does not verify.
    func unverifiable(_ transaction: SimulatedAppStore.SignedTransaction) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        let parts = transaction.jws.split(separator: ".")
        let stranger = P256Signer()
        let signingInput = parts[0] + "." + parts[1]
        guard let signature = stranger.sign(Data(signingInput.utf8)) else {
            throw SimulatedAppStoreError(.invalidState, "cannot sign")
        }
        return SimulatedAppStore.SignedTransaction(jws: signingInput + "." + Base64.encodeURL(signature), payload: transaction.payload)
    }
}

/// A throwaway P-256 key, for signatures that must not verify.
struct P256Signer {
    let key = P256.Signing.PrivateKey()
    func sign(_ data: Data) -> Data? {
        try? key.signature(for: data).rawRepresentation
    }
}
