import Foundation
import TallyKit
import Testing

/// StoreKit 1's receipt refresh may ask for the customer's Apple ID password: it must follow
/// only from the customer's own purchase or restore, and not give up while they type.
@Suite struct ReceiptRefreshTests {
    @Test func onlyAPurchaseOrARestoreRefreshesTheReceipt() {
        let allowed = ReceiptRefresh.Occasion.allCases.filter(ReceiptRefresh.isAllowed)
        #expect(allowed == [.purchase, .restore])
    }

    @Test func nothingTheCustomerDidNotAskForRefreshesIt() {
        #expect(!ReceiptRefresh.isAllowed(.transactionUpdate))
        #expect(!ReceiptRefresh.isAllowed(.unfinishedTransactions))
        #expect(!ReceiptRefresh.isAllowed(.appPurchase))
    }

    @Test func aRefreshWaitsMinutesForThePassword() {
        #expect(ReceiptRefresh.timeout >= 120)
    }
}
