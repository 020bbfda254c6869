import TallyCore
import TallyKit
import TallyTestSupport

/// A store whose answers about what the customer owns (unfinished transactions, current
/// entitlements, history, renewals) wait at a gate: a launch whose store has not answered yet.
/// Everything else goes straight to `base`.
struct GatedStore: Store {
    let base: any Store
    let gate: Gate

    func products(for ids: [String]) async throws(TallyError) -> [ProductDetails] {
        try await base.products(for: ids)
    }

    func purchase(_ productID: String, options: StorePurchaseOptions) async throws(TallyError) -> StorePurchaseResult {
        try await base.purchase(productID, options: options)
    }

    func transactionUpdates() async -> AsyncStream<StoreTransaction> {
        await base.transactionUpdates()
    }

    func purchaseIntents() async -> AsyncStream<StorePurchaseIntent> {
        await base.purchaseIntents()
    }

    func unfinishedTransactions() async throws(TallyError) -> [StoreTransaction] {
        await gate.wait()
        return try await base.unfinishedTransactions()
    }

    func currentEntitlements() async throws(TallyError) -> [StoreTransaction] {
        await gate.wait()
        return try await base.currentEntitlements()
    }

    func transactionHistory() async throws(TallyError) -> [StoreTransaction] {
        await gate.wait()
        return try await base.transactionHistory()
    }

    func subscriptionRenewals() async throws(TallyError) -> [String] {
        await gate.wait()
        return try await base.subscriptionRenewals()
    }

    func finish(_ transaction: StoreTransaction) async throws(TallyError) {
        try await base.finish(transaction)
    }

    func sync() async throws(TallyError) {
        try await base.sync()
    }

    func appTransaction() async throws(TallyError) -> TransactionEvidence {
        try await base.appTransaction()
    }
}
