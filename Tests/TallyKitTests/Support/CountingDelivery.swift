import Foundation
import TallyCore
import TallyKit
import TallyVerify

/// A destination that counts the paid transactions handed to it, then does what the
/// destination it wraps does: to see how many times an app tries to deliver a payment.
actor DeliveryCounter {
    private(set) var deliveries: [String] = []

    func record(_ transactionID: String) { deliveries.append(transactionID) }
}

struct CountingDelivery: Delivery {
    let base: any Delivery
    let counter = DeliveryCounter()

    func catalog(language: TallyLanguage) async throws(TallyError) -> [ProductGrant] { try await base.catalog(language: language) }
    func prepare(productID: String) async throws(TallyError) -> PurchaseTicket { try await base.prepare(productID: productID) }
    func deliver(_ transaction: StoreTransaction, ticket: PurchaseTicket?) async throws(TallyError) -> DeliveryReceipt {
        await counter.record(transaction.id)
        return try await base.deliver(transaction, ticket: ticket)
    }
    func abandon(_ ticket: PurchaseTicket, reason: String) async throws(TallyError) { try await base.abandon(ticket, reason: reason) }
    func account(storeEntitlements: [StoreTransaction], renewals: [String]) async throws(TallyError) -> AccountSnapshot {
        try await base.account(storeEntitlements: storeEntitlements, renewals: renewals)
    }
    func localAccount() async throws(TallyError) -> AccountSnapshot? { try await base.localAccount() }
    func creditHistory(currency: String?) async throws(TallyError) -> CreditHistory { try await base.creditHistory(currency: currency) }
    func spend(_ order: SpendOrder) async throws(TallyError) -> SpendResponse { try await base.spend(order) }
    func reserve(_ order: ReservationOrder) async throws(TallyError) -> Reservation { try await base.reserve(order) }
    func commit(reservationID: String, used: Int64) async throws(TallyError) -> Reservation {
        try await base.commit(reservationID: reservationID, used: used)
    }
    func release(reservationID: String) async throws(TallyError) -> Reservation { try await base.release(reservationID: reservationID) }
    func appPurchase(_ evidence: TransactionEvidence) async throws(TallyError) -> AppPurchase { try await base.appPurchase(evidence) }
}
