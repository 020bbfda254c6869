import Foundation
import TallyKit
import Testing

/// A promoted product tapped on the App Store reaches StoreKit 1's
/// `paymentQueue(_:shouldAddStorePayment:for:)` (the StoreKit 1 store, and StoreKit 2's store
/// below iOS 16.4): the payment is not added to the queue, and the tap becomes a purchase
/// intent for the manager, kept until someone listens.
@Suite struct PromotedPurchaseTests {
    @Test func aPromotedProductIsNotAddedToTheQueueButHandedOver() async {
        let intents = StoreFeed<StorePurchaseIntent>()
        #expect(intents.promoted("com.tally.zorya.report.career") == false)
        var stream = intents.stream().makeAsyncIterator()
        #expect(await stream.next() == StorePurchaseIntent(productID: "com.tally.zorya.report.career"))
    }

    @Test func aTapWhileTheAppListensArrivesAtOnce() async {
        let intents = StoreFeed<StorePurchaseIntent>()
        var stream = intents.stream().makeAsyncIterator()
        _ = intents.promoted("com.tally.zorya.lifetime")
        #expect(await stream.next()?.productID == "com.tally.zorya.lifetime")
    }
}
