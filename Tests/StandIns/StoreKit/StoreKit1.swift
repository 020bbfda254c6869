// Stand-in declarations of the StoreKit 1 API that TallyKit uses, with Apple's names, labels
// and types, so that the Apple-only sources typecheck on Linux (scripts/check_apple_sources.sh).
// Nothing here runs. Each declaration carries Apple's availability on the five platforms the
// package declares (Tests/StandIns/AVAILABILITY.md). Requirements that Apple's Objective-C protocols mark optional are
// required here (Linux has no Objective-C runtime): a misspelt observer method fails the check
// instead of compiling to a method StoreKit never calls.
import Foundation

// Apple: storekit/skpaymentqueue
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKPaymentQueue: NSObject {
    open class func `default`() -> SKPaymentQueue { fatalError("stand-in") }
    open class func canMakePayments() -> Bool { fatalError("stand-in") }
    open var transactions: [SKPaymentTransaction] { fatalError("stand-in") }
    open func add(_ payment: SKPayment) {}
    open func restoreCompletedTransactions() {}
    open func restoreCompletedTransactions(withApplicationUsername username: String?) {}
    open func finishTransaction(_ transaction: SKPaymentTransaction) {}
    open func add(_ observer: any SKPaymentTransactionObserver) {}
    open func remove(_ observer: any SKPaymentTransactionObserver) {}
    // Apple: storekit/skpaymentqueue/presentcoderedemptionsheet()
    @available(iOS 14, visionOS 1, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    open func presentCodeRedemptionSheet() {}
}

// Apple: storekit/skpaymenttransactionobserver
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
public protocol SKPaymentTransactionObserver: NSObjectProtocol {
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction])
    // Optional on Apple's platforms.
    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error)
    // Optional on Apple's platforms.
    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue)
    // Optional on Apple's platforms: iOS 11, Mac Catalyst 14, macOS 11, tvOS 11 and visionOS 1,
    // not watchOS (read from storekit/skpaymenttransactionobserver/paymentqueue(_:shouldaddstorepayment:for:)).
    // Its availability is not declared: a requirement of a Swift protocol cannot be unavailable.
    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool
}

// Apple: storekit/skpaymenttransactionstate
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
public enum SKPaymentTransactionState: Int, @unchecked Sendable {
    case purchasing = 0
    case purchased = 1
    case failed = 2
    case restored = 3
    case deferred = 4
}

// Apple: storekit/skpaymenttransaction
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKPaymentTransaction: NSObject {
    open var error: (any Error)? { fatalError("stand-in") }
    open var original: SKPaymentTransaction? { fatalError("stand-in") }
    open var payment: SKPayment { fatalError("stand-in") }
    open var transactionDate: Date? { fatalError("stand-in") }
    open var transactionIdentifier: String? { fatalError("stand-in") }
    open var transactionState: SKPaymentTransactionState { fatalError("stand-in") }
}

// Apple: storekit/skpayment
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKPayment: NSObject {
    public init(product: SKProduct) {}
    open var productIdentifier: String { fatalError("stand-in") }
    open var requestData: Data? { fatalError("stand-in") }
    open var quantity: Int { fatalError("stand-in") }
    open var applicationUsername: String? { fatalError("stand-in") }
    open var simulatesAskToBuyInSandbox: Bool { fatalError("stand-in") }
    open var paymentDiscount: SKPaymentDiscount? { fatalError("stand-in") }
}

// Apple: storekit/skmutablepayment
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKMutablePayment: SKPayment {
    open override var productIdentifier: String {
        get { fatalError("stand-in") }
        set {}
    }
    open override var requestData: Data? {
        get { fatalError("stand-in") }
        set {}
    }
    open override var quantity: Int {
        get { fatalError("stand-in") }
        set {}
    }
    open override var applicationUsername: String? {
        get { fatalError("stand-in") }
        set {}
    }
    open override var simulatesAskToBuyInSandbox: Bool {
        get { fatalError("stand-in") }
        set {}
    }
    open override var paymentDiscount: SKPaymentDiscount? {
        get { fatalError("stand-in") }
        set {}
    }
}

// Apple: storekit/skpaymentdiscount
@available(iOS 12.2, macOS 10.14.4, tvOS 12.2, watchOS 6.2, visionOS 1, *)
open class SKPaymentDiscount: NSObject {
    public init(identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber) {}
    open var identifier: String { fatalError("stand-in") }
    open var keyIdentifier: String { fatalError("stand-in") }
    open var nonce: UUID { fatalError("stand-in") }
    open var signature: String { fatalError("stand-in") }
    open var timestamp: NSNumber { fatalError("stand-in") }
}

// Apple: storekit/skproduct
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKProduct: NSObject {
    public enum PeriodUnit: UInt, @unchecked Sendable {
        case day = 0
        case week = 1
        case month = 2
        case year = 3
    }

    open var localizedDescription: String { fatalError("stand-in") }
    open var localizedTitle: String { fatalError("stand-in") }
    open var price: NSDecimalNumber { fatalError("stand-in") }
    open var priceLocale: Locale { fatalError("stand-in") }
    open var productIdentifier: String { fatalError("stand-in") }
    open var subscriptionPeriod: SKProductSubscriptionPeriod? { fatalError("stand-in") }
    open var subscriptionGroupIdentifier: String? { fatalError("stand-in") }
    open var introductoryPrice: SKProductDiscount? { fatalError("stand-in") }
}

// Apple: storekit/skproductdiscount
@available(iOS 11.2, macOS 10.13.2, tvOS 11.2, watchOS 6.2, visionOS 1, *)
open class SKProductDiscount: NSObject {
    public enum PaymentMode: UInt, @unchecked Sendable {
        case payAsYouGo = 0
        case payUpFront = 1
        case freeTrial = 2
    }

    open var price: NSDecimalNumber { fatalError("stand-in") }
    open var priceLocale: Locale { fatalError("stand-in") }
    open var identifier: String? { fatalError("stand-in") }
    open var subscriptionPeriod: SKProductSubscriptionPeriod { fatalError("stand-in") }
    open var numberOfPeriods: Int { fatalError("stand-in") }
    open var paymentMode: SKProductDiscount.PaymentMode { fatalError("stand-in") }
}

// Apple: storekit/skproductsubscriptionperiod
@available(iOS 11.2, macOS 10.13.2, tvOS 11.2, watchOS 6.2, visionOS 1, *)
open class SKProductSubscriptionPeriod: NSObject {
    open var numberOfUnits: Int { fatalError("stand-in") }
    open var unit: SKProduct.PeriodUnit { fatalError("stand-in") }
}

// Apple: storekit/skrequest
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKRequest: NSObject {
    // `SKProductsRequest` narrows it to `SKProductsRequestDelegate` on Apple's platforms;
    // Swift cannot redeclare it, so both assignments typecheck against this one.
    open weak var delegate: (any SKRequestDelegate)?
    open func cancel() {}
    open func start() {}
}

// Apple: storekit/skrequestdelegate
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
public protocol SKRequestDelegate: NSObjectProtocol {
    // Optional on Apple's platforms.
    func requestDidFinish(_ request: SKRequest)
    // Optional on Apple's platforms.
    func request(_ request: SKRequest, didFailWithError error: any Error)
}

// Apple: storekit/skproductsrequest
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKProductsRequest: SKRequest {
    public init(productIdentifiers: Set<String>) {}
}

// Apple: storekit/skproductsrequestdelegate
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
public protocol SKProductsRequestDelegate: SKRequestDelegate {
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse)
}

// Apple: storekit/skproductsresponse
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKProductsResponse: NSObject {
    open var products: [SKProduct] { fatalError("stand-in") }
    open var invalidProductIdentifiers: [String] { fatalError("stand-in") }
}

// Apple: storekit/skreceiptrefreshrequest
@available(iOS 7, macOS 10.9, tvOS 9, watchOS 6.2, visionOS 1, *)
open class SKReceiptRefreshRequest: SKRequest {
    public init(receiptProperties properties: [String: Any]? = nil) {}
}

// Apple: storekit/skerror (lists no tvOS; tvOS 9 from storekit/skerrordomain, the same header)
@available(iOS 3, macOS 10.7, tvOS 9, watchOS 6.2, visionOS 1, *)
public struct SKError: Error, Hashable, Sendable {
    public enum Code: Int, Sendable {
        case unknown = 0
        case clientInvalid = 1
        case paymentCancelled = 2
        case paymentInvalid = 3
        case paymentNotAllowed = 4
        case storeProductNotAvailable = 5
        case cloudServicePermissionDenied = 6
        case cloudServiceNetworkConnectionFailed = 7
        case cloudServiceRevoked = 8
        case privacyAcknowledgementRequired = 9
        case unauthorizedRequestData = 10
        case invalidOfferIdentifier = 11
        case invalidSignature = 12
        case missingOfferParams = 13
        case invalidOfferPrice = 14
        case overlayCancelled = 15
        case overlayInvalidConfiguration = 16
        case overlayTimeout = 17
        // iOS 14, macOS 11, tvOS 14, watchOS 7, but not declared: Swift does not diagnose a newer
        // case of an imported C enum in a pattern (swiftlang/swift#77254), the only use here.
        case ineligibleForOffer = 18
        case unsupportedPlatform = 19
        case overlayPresentedInBackgroundScene = 20
    }

    public var code: Code { fatalError("stand-in") }
}
