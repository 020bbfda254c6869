import Foundation
import TallyCore

/// Everything the simulated store remembers, saved as one JSON file so that a store
/// restarted from the same file continues where it stopped (pending Ask to Buy included).
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
struct StoreState: Codable, Sendable {
    var version = 1
    /// For a manual clock: the start of simulated time.
    var manualStart: Date?
    /// Seconds added to the base clock by `advance(by:)`.
    var timeOffset: TimeInterval = 0
    var nextTransactionNumber: Int64
    var nextWebOrderLineItemNumber: Int64
    var nextPendingNumber: Int64 = 1
    var transactions: [TransactionRecord] = []
    var subscriptions: [SubscriptionRecord] = []
    var pending: [SimulatedAppStore.PendingPurchase] = []
    var notifications: [NotificationRecord] = []
    var consumptionInformation: [ConsumptionRecord] = []
    var settings: SimulatedAppStore.Settings
    /// The app download's transaction identifier, carried by every transaction.
    var appTransactionID = String(Int64.random(in: 700_000_000_000_000_000..<799_999_999_999_999_999))
    /// Each device's app receipt, by device identifier in lowercase hexadecimal; optional so
    /// that state files written before receipts existed still load.
    var receipts: [String: DeviceReceiptRecord]?
    /// When the customer first got the app: the original purchase date every receipt names.
    var appPurchaseDate: Date?

    func transactionIndex(_ id: String) -> Int? {
        transactions.firstIndex { $0.payload.transactionID == id }
    }

    func subscriptionIndex(originalTransactionID: String) -> Int? {
        subscriptions.firstIndex { $0.originalTransactionID == originalTransactionID }
    }
}

/// One transaction, unsigned; it is signed with the current time whenever it is handed out.
struct TransactionRecord: Codable, Sendable {
    var payload: TransactionPayload
    var finished = false
    /// For a family member's copy: the purchaser's transaction it was shared from.
    var sharedFrom: String?
}

/// One device's app receipt as last issued: it changes only when the store issues it again
/// (a StoreKit 1 purchase on that device, or a refresh), as the file on a device does.
struct DeviceReceiptRecord: Codable, Sendable {
    /// The opaque value that enters the device hash; drawn once per device.
    var opaqueValue: Data
    /// When the receipt was issued: its creation date.
    var createdAt: Date
    /// The in-app purchases it lists.
    var inAppPurchases: [InAppPurchaseReceipt]
}

/// The renewal state of one auto-renewable subscription (one `originalTransactionID`).
struct SubscriptionRecord: Codable, Sendable {
    var originalTransactionID: String
    var groupID: String
    var productID: String
    var autoRenewProductID: String
    var autoRenew: Bool
    var expiresDate: Date
    var status: SubscriptionStatus
    var latestTransactionID: String
    var appAccountToken: String?
    var recentSubscriptionStartDate: Date
    var gracePeriodExpiresDate: Date?
    var billingRetryEndsDate: Date?
    var expirationIntent: ExpirationIntent?
    /// A pay-as-you-go offer still running: its kind, identifier, price and periods left after the current one.
    var offer: RunningOffer?
    /// The next renewal fails with a billing issue.
    var failNextRenewal = false
}

struct RunningOffer: Codable, Sendable {
    var type: OfferType
    var identifier: String?
    var discountType: OfferDiscountType
    /// The offer's whole duration, as `offerPeriod` reports it.
    var period: String
    /// The length of one discounted period.
    var periodLength: String?
    var price: Int64
    var periodsLeft: Int
}

/// One notification and its delivery history.
struct NotificationRecord: Codable, Sendable {
    var uuid: String
    var type: NotificationType
    var subtype: NotificationSubtype?
    var transactionID: String?
    var signedPayload: String
    var createdAt: Date
    var attempts: [DeliveryAttempt] = []
    var nextAttemptAt: Date?
    var delivered = false
    /// Set for notifications asked for with Request a Test Notification.
    var testToken: String?
}

struct DeliveryAttempt: Codable, Sendable {
    var date: Date
    var result: String
}

/// Consumption information sent for a transaction through the fake App Store Server API.
struct ConsumptionRecord: Codable, Sendable {
    var transactionID: String
    var receivedAt: Date
    var body: Data
}
