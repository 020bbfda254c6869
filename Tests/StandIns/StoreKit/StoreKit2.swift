// Stand-in declarations of the StoreKit 2 API that TallyKit uses, with Apple's names, labels
// and types (see StoreKit1.swift). Availability is not declared: Linux does not check it.
import Foundation
import UIKit

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
        public let winBackOffers: [SubscriptionOffer]
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

    @MainActor
    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult { fatalError("stand-in") }

    @MainActor
    public func purchase(confirmIn scene: some UIScene, options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        fatalError("stand-in")
    }
}

public struct Transaction: Identifiable, Hashable, Sendable {
    public typealias Transactions = AsyncStream<VerificationResult<Transaction>>

    public enum RefundRequestStatus: Sendable {
        case userCancelled
        case success
    }
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

public enum VerificationResult<SignedType: Sendable>: Sendable {
    public enum VerificationError: Error, Sendable {
        case revokedCertificate, invalidCertificateChain, invalidDeviceVerification, invalidEncoding, invalidSignature, missingRequiredProperties
    }
    case unverified(SignedType, VerificationError)
    case verified(SignedType)

    public var unsafePayloadValue: SignedType { fatalError("stand-in") }
    public var jwsRepresentation: String { fatalError("stand-in") }
}

public struct Message: Sendable {
    public typealias Messages = AsyncStream<Message>
    public static var messages: Messages { fatalError("stand-in") }
    @MainActor public func display(in scene: UIWindowScene) throws {}
}

public struct AppTransaction: Sendable {
    public static var shared: VerificationResult<AppTransaction> {
        get async throws { fatalError("stand-in") }
    }
}

public enum AppStore {
    public static func sync() async throws {}
    public static var deviceVerificationID: UUID? { fatalError("stand-in") }
    @MainActor public static func showManageSubscriptions(in scene: UIWindowScene) async throws {}
    @MainActor public static func presentOfferCodeRedeemSheet(in scene: UIWindowScene) async throws {}
}

public enum StoreKitError: Error, Sendable {
    case unknown
    case userCancelled
    case networkError(URLError)
    case systemError(any Error)
    case notAvailableInStorefront
    case notEntitled
    case unsupported
}

public struct PurchaseIntent: Identifiable, Hashable, Sendable {
    public typealias PurchaseIntents = AsyncStream<PurchaseIntent>
    public let id: String
    public let product: Product
    public let offer: Product.SubscriptionOffer?
    public static var intents: PurchaseIntents { fatalError("stand-in") }
}
