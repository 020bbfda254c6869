import Crypto
public import Foundation
import TallyCore
import TallyVerify

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// Marks a transaction finished, as `Transaction.finish()`.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown transaction.
    public func finish(transactionID: String) throws(SimulatedAppStoreError) {
        guard let index = state.transactionIndex(transactionID) else {
            throw SimulatedAppStoreError(.notFound, "no transaction \(transactionID)")
        }
        guard !state.transactions[index].finished else { return }
        state.transactions[index].finished = true
        try save()
    }

    /// Transactions not finished yet, signed now, oldest first, as `Transaction.unfinished`.
    public func unfinishedTransactions() throws(SimulatedAppStoreError) -> [SimulatedAppStore.SignedTransaction] {
        var result: [SimulatedAppStore.SignedTransaction] = []
        for record in state.transactions where !record.finished && record.payload.inAppOwnershipType == .purchased {
            result.append(try signed(record))
        }
        return result
    }

    /// The latest transaction of each product the customer is entitled to now, as
    /// `Transaction.currentEntitlements`: non-consumables and non-renewing subscriptions not
    /// revoked, and auto-renewable subscriptions that are active or in a grace period.
    public func currentEntitlements() throws(SimulatedAppStoreError) -> [SimulatedAppStore.SignedTransaction] {
        var result: [SimulatedAppStore.SignedTransaction] = []
        var seen = Set<String>()
        for record in state.transactions.reversed() {
            let payload = record.payload
            guard payload.revocationDate == nil, let productID = payload.productID, !seen.contains(productID) else { continue }
            switch payload.type {
            case .nonConsumable?, .nonRenewingSubscription?:
                seen.insert(productID)
                result.append(try signed(record))
            case .autoRenewableSubscription?:
                guard let original = payload.originalTransactionID,
                    let subscription = state.subscriptions.first(where: { $0.originalTransactionID == original }),
                    subscription.latestTransactionID == payload.transactionID,
                    [.active, .billingGracePeriod].contains(subscription.status)
                else { continue }
                seen.insert(productID)
                result.append(try signed(record))
            default:
                continue
            }
        }
        return result.reversed()
    }

    /// Every transaction, signed now, oldest first, as `Transaction.all`; finished consumables
    /// are left out unless asked for or refunded (revoked), as StoreKit does.
    public func history(includingFinishedConsumables: Bool = false) throws(SimulatedAppStoreError) -> [SimulatedAppStore.SignedTransaction] {
        var result: [SimulatedAppStore.SignedTransaction] = []
        for record in state.transactions {
            if record.payload.type == .consumable, record.finished, record.payload.revocationDate == nil, !includingFinishedConsumables {
                continue
            }
            result.append(try signed(record))
        }
        return result
    }

    /// One transaction, signed now.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown transaction.
    public func transaction(_ id: String) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        try signedTransaction(id)
    }

    /// The transaction as StoreKit 2 hands it to one device: signed again with a fresh
    /// `deviceVerificationNonce` and the `deviceVerification` of that device (see
    /// `DeviceVerification`), so a JWS copied to another device does not match it.
    /// - Parameters:
    ///   - transaction: a transaction of this store.
    ///   - deviceVerificationID: the device's `AppStore.deviceVerificationID`.
    public func transaction(
        _ transaction: SimulatedAppStore.SignedTransaction, boundTo deviceVerificationID: UUID
    ) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        var payload = transaction.payload
        Self.bind(&payload.deviceVerification, &payload.deviceVerificationNonce, to: deviceVerificationID)
        let bound = SimulatedAppStore.SignedTransaction(jws: try sign(payload), payload: payload)
        // One that did not verify (the `.unverified` outcome) still does not.
        return isSignedByThisStore(transaction.jws) ? bound : try unverifiable(bound)
    }

    /// Whether `jws` carries this store's signature.
    func isSignedByThisStore(_ jws: String) -> Bool {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let raw = Base64.decode(parts[2].utf8, alphabet: .url),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return authority.leafKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
    }

    /// Sets a payload's device verification for `deviceVerificationID`, with a fresh nonce.
    static func bind(_ verification: inout String?, _ nonce: inout String?, to deviceVerificationID: UUID) {
        let fresh = UUID().uuidString.lowercased()
        nonce = fresh
        verification = DeviceVerification.value(nonce: fresh, deviceVerificationID: deviceVerificationID)
    }

    /// Whether the transaction was finished.
    public func isFinished(transactionID: String) -> Bool {
        state.transactionIndex(transactionID).map { state.transactions[$0].finished } ?? false
    }
}
