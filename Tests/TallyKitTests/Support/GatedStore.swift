import TallyCore
import TallyKit
import TallyTestSupport

/// A store whose answers about what the customer owns (unfinished transactions, current
/// entitlements, history, renewals) wait at a gate: a launch whose store has not answered yet.
/// It keeps the options of every purchase asked of it. Everything else goes straight to `base`.
struct GatedStore: Store {
    let base: any Store
    /// No gate: every answer goes straight through.
    var gate: Gate? = nil
    let purchases = PurchasesAsked()

    /// The options of each purchase asked, in order.
    actor PurchasesAsked {
        private(set) var options: [StorePurchaseOptions] = []
        func append(_ asked: StorePurchaseOptions) { options.append(asked) }
    }

    func products(for ids: [String]) async throws(TallyError) -> [ProductDetails] {
        try await base.products(for: ids)
    }

    func purchase(_ productID: String, options: StorePurchaseOptions) async throws(TallyError) -> StorePurchaseResult {
        await purchases.append(options)
        return try await base.purchase(productID, options: options)
    }

    func transactionUpdates() async -> AsyncStream<StoreTransaction> {
        await base.transactionUpdates()
    }

    func purchaseIntents() async -> AsyncStream<StorePurchaseIntent> {
        await base.purchaseIntents()
    }

    func unfinishedTransactions() async throws(TallyError) -> [StoreTransaction] {
        await gate?.wait()
        return try await base.unfinishedTransactions()
    }

    func currentEntitlements() async throws(TallyError) -> [StoreTransaction] {
        await gate?.wait()
        return try await base.currentEntitlements()
    }

    func transactionHistory() async throws(TallyError) -> [StoreTransaction] {
        await gate?.wait()
        return try await base.transactionHistory()
    }

    func subscriptionRenewals() async throws(TallyError) -> [String] {
        await gate?.wait()
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
