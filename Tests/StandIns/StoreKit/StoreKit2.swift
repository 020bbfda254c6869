// Stand-in declarations of the StoreKit 2 API that TallyKit uses, with Apple's names, labels
// and types (see StoreKit1.swift), and Apple's availability on the five platforms the package
// declares (Tests/StandIns/AVAILABILITY.md says where each figure comes from and how
// scripts/apple_availability.py makes the Linux compiler enforce it).
import Foundation
import UIKit

// Apple: storekit/product
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *)
public struct Product: Identifiable, Hashable, Sendable {
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let consumable = ProductType(rawValue: "Consumable")
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        public static let nonRenewable = ProductType(rawValue: "Non-Renewable")
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable")
    }

    public struct SubscriptionPeriod: Hashable, Sendable {
        public enum Unit: Hashable, Sendable {
            case day, week, month, year
        }
        public let unit: Unit
        public let value: Int
    }

    public struct SubscriptionInfo: Hashable, Sendable {
        public struct RenewalState: RawRepresentable, Hashable, Sendable {
            public var rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            public static let subscribed = RenewalState(rawValue: 1)
            public static let expired = RenewalState(rawValue: 2)
            public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
            public static let inGracePeriod = RenewalState(rawValue: 4)
            public static let revoked = RenewalState(rawValue: 5)
        }

        public struct RenewalInfo: Hashable, Sendable {
            public let originalTransactionID: UInt64
            public let willAutoRenew: Bool
            public let gracePeriodExpirationDate: Date?
        }

        public struct Status: Sendable {
            public let state: RenewalState
            public let transaction: VerificationResult<Transaction>
            public let renewalInfo: VerificationResult<RenewalInfo>
        }

        public let subscriptionPeriod: SubscriptionPeriod
        public let subscriptionGroupID: String
        // Apple: storekit/product/subscriptioninfo/winbackoffers
        @available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
        // A computed property here: a stored one cannot be newer than its type.
        public var winBackOffers: [SubscriptionOffer] { fatalError("stand-in") }
        public let introductoryOffer: SubscriptionOffer?
        public var isEligibleForIntroOffer: Bool { get async { fatalError("stand-in") } }

        public static func status(for groupID: String) async throws -> [Status] { fatalError("stand-in") }
    }

    public struct SubscriptionOffer: Hashable, Sendable {
        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            public var rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let freeTrial = PaymentMode(rawValue: "FREE_TRIAL")
            public static let payAsYouGo = PaymentMode(rawValue: "PAY_AS_YOU_GO")
            public static let payUpFront = PaymentMode(rawValue: "PAY_UP_FRONT")
        }
        public let id: String?
        public let displayPrice: String
        public let price: Decimal
        public let paymentMode: PaymentMode
        public let period: SubscriptionPeriod
        public let periodCount: Int
    }

    public struct PurchaseOption: Hashable, Sendable {
        // Apple: storekit/product/purchaseoption/winbackoffer(_:)
        @available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
        public static func winBackOffer(_ offer: SubscriptionOffer) -> PurchaseOption { fatalError("stand-in") }
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { fatalError("stand-in") }
        public static func quantity(_ quantity: Int) -> PurchaseOption { fatalError("stand-in") }
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) -> PurchaseOption {
            fatalError("stand-in")
        }
        public static func simulatesAskToBuyInSandbox(_ simulatesAskToBuy: Bool) -> PurchaseOption { fatalError("stand-in") }
    }

    public enum PurchaseResult: Sendable {
        case success(VerificationResult<Transaction>)
        case userCancelled
        case pending
    }

    public enum PurchaseError: Error, Hashable, Sendable {
        case invalidQuantity
        case productUnavailable
        case purchaseNotAllowed
        case ineligibleForOffer
        case invalidOfferIdentifier
        case invalidOfferPrice
        case invalidOfferSignature
        case missingOfferParameters
    }

    public let id: String
    public let type: ProductType
    public let displayName: String
    public let description: String
    public let displayPrice: String
    public let price: Decimal
    public let subscription: SubscriptionInfo?
    public var priceFormatStyle: Decimal.FormatStyle.Currency { fatalError("stand-in") }

    public static func products(for identifiers: some Collection<String>) async throws -> [Product] { fatalError("stand-in") }

    // Apple: storekit/product/purchase(options:)
    @available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
    @available(visionOS, unavailable)
    @MainActor
    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult { fatalError("stand-in") }

    // Apple: storekit/product/purchase(confirmin:options:)-6dj6y
    @available(iOS 17, tvOS 17, visionOS 1, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    @MainActor
    public func purchase(confirmIn scene: some UIScene, options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        fatalError("stand-in")
    }
}

// Apple: storekit/transaction
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *)
public struct Transaction: Identifiable, Hashable, Sendable {
    public typealias Transactions = AsyncStream<VerificationResult<Transaction>>

    public enum RefundRequestStatus: Sendable {
        case userCancelled
        case success
    }
    // Apple: storekit/transaction/beginrefundrequest(for:in:)-65tph (page not re-read)
    @available(iOS 15, visionOS 1, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @MainActor public static func beginRefundRequest(for transactionID: UInt64, in scene: UIWindowScene) async throws -> RefundRequestStatus {
        fatalError("stand-in")
    }

    public let id: UInt64
    public let originalID: UInt64
    public let productID: String
    public let purchaseDate: Date
    public let revocationDate: Date?
    public let expirationDate: Date?
    public let appAccountToken: UUID?
    public let subscriptionGroupID: String?

    public func finish() async {}

    public static var updates: Transactions { fatalError("stand-in") }
    public static var unfinished: Transactions { fatalError("stand-in") }
    public static var all: Transactions { fatalError("stand-in") }
    public static var currentEntitlements: Transactions { fatalError("stand-in") }
}

// Apple: storekit/verificationresult
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *)
public enum VerificationResult<SignedType: Sendable>: Sendable {
    public enum VerificationError: Error, Sendable {
        case revokedCertificate, invalidCertificateChain, invalidDeviceVerification, invalidEncoding, invalidSignature, missingRequiredProperties
    }
    case unverified(SignedType, VerificationError)
    case verified(SignedType)

    public var unsafePayloadValue: SignedType { fatalError("stand-in") }
    public var jwsRepresentation: String { fatalError("stand-in") }
}

// Apple: storekit/message
@available(iOS 16, visionOS 1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct Message: Sendable {
    public typealias Messages = AsyncStream<Message>
    public static var messages: Messages { fatalError("stand-in") }
    @MainActor public func display(in scene: UIWindowScene) throws {}
}

// Apple: storekit/apptransaction/shared
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1, *)
public struct AppTransaction: Sendable {
    public static var shared: VerificationResult<AppTransaction> {
        get async throws { fatalError("stand-in") }
    }
}

// Apple: storekit/appstore
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *)
public enum AppStore {
    public static func sync() async throws {}
    public static var deviceVerificationID: UUID? { fatalError("stand-in") }
    // Apple: storekit/appstore/showmanagesubscriptions(in:)
    @available(iOS 15, visionOS 1, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @MainActor public static func showManageSubscriptions(in scene: UIWindowScene) async throws {}
    // Apple: storekit/appstore/presentoffercoderedeemsheet(in:)
    @available(iOS 16, visionOS 1, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @MainActor public static func presentOfferCodeRedeemSheet(in scene: UIWindowScene) async throws {}
}

// Apple: storekit/storekiterror
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *)
public enum StoreKitError: Error, Sendable {
    case unknown
    case userCancelled
    case networkError(URLError)
    case systemError(any Error)
    case notAvailableInStorefront
    // Apple: storekit/storekiterror/notentitled
    @available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1, *)
    case notEntitled
    case unsupported
}

// Apple: storekit/purchaseintent/product
@available(iOS 16.4, macOS 14.4, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
public struct PurchaseIntent: Identifiable, Hashable, Sendable {
    public typealias PurchaseIntents = AsyncStream<PurchaseIntent>
    public let id: String
    public let product: Product
    // Apple: storekit/purchaseintent/offer
    @available(iOS 18, macOS 15, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public var offer: Product.SubscriptionOffer? { fatalError("stand-in") }
    public static var intents: PurchaseIntents { fatalError("stand-in") }
}
