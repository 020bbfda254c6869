// StoreKit exists on Apple platforms only (checked on Linux by scripts/check_apple_sources.sh).
#if canImport(StoreKit)
import Foundation
import StoreKit
public import TallyCore

#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// A ``Store`` over StoreKit 2: the App Store on iPhone, iPad, Mac, Apple TV and Apple Watch.
///
/// It maps StoreKit and decides nothing. Every transaction is handed over as its JWS whether
/// StoreKit verified it or not, because TallyKit verifies the JWS itself (``OnDeviceLedger``
/// or the Tally server); journaling, delivery, retries and finishing are ``PurchaseManager``'s.
///
/// ```swift
/// let manager = try await PurchaseManager(
///     store: StoreKit2Store(), delivery: ledger, database: database,
///     configuration: .init(productIDs: ["com.tally.zorya.report.career"]))
/// ```
///
/// Re-entrancy: the actor keeps only the StoreKit transactions it handed out, by id, so that
/// ``finish(_:)`` has something to finish. Each change to that map happens between
/// suspensions; two finishes of one transaction at once both call StoreKit, which is harmless.
///
/// StoreKit 2 needs iOS 15, macOS 12, tvOS 15 and watchOS 8; below those ``StoreKit1Store``
/// does the same with StoreKit 1 (``DeviceStore/automatic(productKinds:)`` chooses).
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
public actor StoreKit2Store: Store {
    /// The StoreKit transactions handed out, by transaction id, until they are finished.
    private var seen: [UInt64: StoreKit.Transaction] = [:]
    /// The updates and the purchases started on the App Store, kept until someone listens.
    private nonisolated let updates = StoreFeed<StoreTransaction>()
    private nonisolated let intents: StoreFeed<StorePurchaseIntent>
    /// StoreKit 1's promoted-purchase observer where StoreKit 2 has no `PurchaseIntent`; kept
    /// for the store's life.
    private let promotions: (any Sendable)?

    /// Creates a store over the App Store of the device's account and starts listening to
    /// `Transaction.updates` at once, as Apple advises: make it at launch. What arrives before
    /// ``transactionUpdates()`` is called is kept and handed to its first caller.
    public init() {
        let intents = StoreFeed<StorePurchaseIntent>()
        self.intents = intents
        promotions = Self.promotedPurchases(feeding: intents)
        Task { await self.listen() }
        #if !os(tvOS) && !os(watchOS) && !os(visionOS)
        if #available(iOS 16.4, macOS 14.4, *) { Task { await self.listenForIntents() } }
        #endif
    }

    /// The products with these identifiers that the App Store sells in the customer's
    /// storefront; identifiers it does not know are left out.
    /// - Parameter ids: product identifiers.
    /// - Returns: names, prices and subscription terms as StoreKit localizes them.
    /// - Throws: ``TallyError`` `network_error` when the App Store cannot be reached,
    ///   `product_not_found` when the products cannot be loaded.
    public nonisolated func products(for ids: [String]) async throws(TallyError) -> [ProductDetails] {
        do {
            // Mapped here, so StoreKit's products never cross to another isolation domain.
            var result: [ProductDetails] = []
            let products = try await StoreKit.Product.products(for: ids)
            await Self.remember(products)
            for product in products {
                var details = Self.details(product)
                if let info = product.subscription { details.subscription?.isEligibleForIntroductoryOffer = await info.isEligibleForIntroOffer }
                result.append(details)
            }
            return result
        } catch {
            throw Self.error(error, otherwise: .productNotFound)
        }
    }

    /// Shows the App Store payment sheet for a product.
    /// - Parameters:
    ///   - productID: the product.
    ///   - options: the app account token, the quantity and a signed promotional offer.
    /// - Returns: `.success` with the transaction (verified by StoreKit or not), `.userCancelled`
    ///   when the customer dismissed the sheet, or `.pending` for Ask to Buy.
    /// - Throws: ``TallyError`` `product_not_found`, `payment_not_allowed`, `payment_declined`,
    ///   `network_error`, `invalid_request` for a quantity or an offer StoreKit refused, and
    ///   `verification_failed` when the transaction is not a readable JWS.
    public func purchase(_ productID: String, options: StorePurchaseOptions) async throws(TallyError) -> StorePurchaseResult {
        let outcome: Outcome
        do {
            outcome = try await Self.buy(productID, options: options)
        } catch {
            // What StoreKit does not explain was not the customer's payment being declined.
            throw Self.error(error, otherwise: .storeUnavailable)
        }
        switch outcome {
        case .paid(let signed):
            seen[signed.transaction.id] = signed.transaction
            return .success(try StoreTransaction(jws: signed.jws))
        case .cancelled:
            return .userCancelled
        case .pending:
            return .pending
        }
    }

    /// Transactions StoreKit creates or changes outside a purchase call: renewals, Ask to Buy
    /// approvals, purchases on other devices, refunds; right after launch also the unfinished ones.
    /// - Returns: a stream of the transactions; it stops listening when the caller does.
    public func transactionUpdates() async -> AsyncStream<StoreTransaction> {
        updates.stream()
    }

    /// Purchases started on the App Store, kept for the first listener when they arrive before
    /// it: `PurchaseIntent` from iOS 16.4 and macOS 14.4; below them, and on tvOS and visionOS,
    /// promoted products through StoreKit 1's `paymentQueue(_:shouldAddStorePayment:for:)`;
    /// none on watchOS.
    public func purchaseIntents() async -> AsyncStream<StorePurchaseIntent> {
        intents.stream()
    }

    /// StoreKit 1's promoted-purchase observer where `PurchaseIntent` does not exist (iOS 15.0
    /// to 16.3 in particular, where this store is chosen): without it a tap on a promoted
    /// product would open the app and nothing would happen.
    private static func promotedPurchases(feeding intents: StoreFeed<StorePurchaseIntent>) -> (any Sendable)? {
        #if os(watchOS)
        return nil
        #else
        #if !os(tvOS) && !os(visionOS)
        if #available(iOS 16.4, macOS 14.4, *) { return nil }
        #endif
        return PromotedPurchaseObserver(intents: intents)
        #endif
    }

    #if !os(tvOS) && !os(watchOS) && !os(visionOS)
    @available(iOS 16.4, macOS 14.4, *)
    private func listenForIntents() async {
        for await intent in PurchaseIntent.intents {
            var offerID: String?
            if #available(iOS 18, macOS 15, *) { offerID = intent.offer?.id }
            intents.send(StorePurchaseIntent(productID: intent.product.id, winBackOfferID: offerID))
        }
    }
    #endif

    /// Iterates `Transaction.updates` for the store's life: one listener, whoever subscribes.
    private func listen() async {
        for await result in StoreKit.Transaction.updates {
            let signed = Signed(result)
            seen[signed.transaction.id] = signed.transaction
            // An unreadable JWS is skipped: it stays unfinished and StoreKit offers it again.
            guard let transaction = try? StoreTransaction(jws: signed.jws) else { continue }
            updates.send(transaction)
        }
    }

    /// Paid transactions not finished yet, oldest first.
    /// - Returns: the transactions whose JWS reads; one that does not stays unfinished in StoreKit.
    /// - Throws: never; the signature matches ``Store``.
    public func unfinishedTransactions() async throws(TallyError) -> [StoreTransaction] {
        let signed = await Self.unfinished().sorted { $0.transaction.purchaseDate < $1.transaction.purchaseDate }
        return handOut(signed)
    }

    /// The latest transaction of each non-consumable, non-renewing and active auto-renewable
    /// subscription the customer owns.
    /// - Returns: the transactions whose JWS reads.
    /// - Throws: never; the signature matches ``Store``.
    public func currentEntitlements() async throws(TallyError) -> [StoreTransaction] {
        // Not remembered for finish(): entitlements are finished already, or taken up as
        // unfinished ones, and remembering every refresh's would grow without end.
        await Self.entitlements().compactMap { try? StoreTransaction(jws: $0.jws) }
    }

    /// Every transaction StoreKit keeps for the customer (`Transaction.all`), oldest first:
    /// finished and expired ones included, finished consumables left out unless refunded.
    /// - Returns: the transactions whose JWS reads.
    /// - Throws: never; the signature matches ``Store``.
    public func transactionHistory() async throws(TallyError) -> [StoreTransaction] {
        // Not remembered for finish(): these are finished already, or taken up as unfinished ones.
        await Self.all().sorted { $0.transaction.purchaseDate < $1.transaction.purchaseDate }
            .compactMap { try? StoreTransaction(jws: $0.jws) }
    }

    /// The renewal info of each subscription group the customer has subscribed to
    /// (`Product.SubscriptionInfo.status(for:)`), as JWS whatever StoreKit's own verdict: the
    /// device verifies it.
    /// - Throws: never; a group whose status cannot be read is left out.
    public nonisolated func subscriptionRenewals() async throws(TallyError) -> [String] {
        var groups = Set<String>()
        for await result in StoreKit.Transaction.all {
            if let group = result.unsafePayloadValue.subscriptionGroupID { groups.insert(group) }
        }
        var renewals: [String] = []
        for group in groups.sorted() {
            guard let statuses = try? await StoreKit.Product.SubscriptionInfo.status(for: group) else { continue }
            renewals += statuses.map(\.renewalInfo.jwsRepresentation)
        }
        return renewals
    }

    /// Tells the App Store the transaction's content was delivered.
    ///
    /// A transaction handed out before this launch is looked up among StoreKit's unfinished
    /// ones; one that is not there was finished already, and nothing is done.
    /// - Parameter transaction: a transaction this store handed out.
    /// - Throws: ``TallyError`` `invalid_request` when its id is not a StoreKit transaction id.
    public func finish(_ transaction: StoreTransaction) async throws(TallyError) {
        guard let id = UInt64(transaction.id) else {
            throw TallyError(.invalidRequest, "\(transaction.id) is not a StoreKit transaction id")
        }
        var target = seen.removeValue(forKey: id)
        if target == nil {
            target = await Self.unfinished().first { $0.transaction.id == id }?.transaction
        }
        await target?.finish()
    }

    /// Brings the device's transactions up to date with the App Store (restore). The system asks
    /// the customer to sign in, so call it only when the customer asked to restore.
    /// - Throws: ``TallyError`` `restore_failed` when the App Store could not sync.
    public nonisolated func sync() async throws(TallyError) {
        do {
            try await StoreKit.AppStore.sync()
        } catch StoreKitError.userCancelled {
            // The customer closed the sign-in: not an error; what the device has is restored.
            // (StoreKit also reports this offline; PurchaseManager checks connectivity first.)
        } catch {
            throw TallyError(.restoreFailed, "the App Store could not sync: \(error)")
        }
    }

    /// The app's own purchase: `AppTransaction.shared` as a JWS from iOS 16 and macOS 13 (the
    /// device verifies it, whatever StoreKit's verdict), the app receipt below.
    /// - Throws: ``TallyError`` `store_unavailable` when StoreKit cannot provide it, or the device
    ///   has no receipt.
    public nonisolated func appTransaction() async throws(TallyError) -> TransactionEvidence {
        if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1, *) {
            do {
                return .jws(try await AppTransaction.shared.jwsRepresentation)
            } catch {
                throw Self.error(error, otherwise: .storeUnavailable)
            }
        }
        guard let url = Bundle.main.appStoreReceiptURL, let data = try? Data(contentsOf: url), !data.isEmpty else {
            throw TallyError(.storeUnavailable, "the device has no app receipt")
        }
        return .receipt(data.base64EncodedString())
    }

    // MARK: - StoreKit

    /// A StoreKit transaction and its JWS, whatever StoreKit's own verdict on it.
    private struct Signed: Sendable {
        let transaction: StoreKit.Transaction
        let jws: String

        init(_ result: StoreKit.VerificationResult<StoreKit.Transaction>) {
            transaction = result.unsafePayloadValue
            jws = result.jwsRepresentation
        }
    }

    /// What came of a payment sheet, in Sendable values only.
    private enum Outcome: Sendable {
        case paid(Signed)
        case cancelled
        case pending
    }

    /// The products loaded so far, so that a purchase does not load its product again (one
    /// round trip and one failure less before the payment sheet).
    @MainActor private static var loaded: [String: StoreKit.Product] = [:]

    @MainActor
    private static func remember(_ products: [StoreKit.Product]) {
        for product in products { loaded[product.id] = product }
    }

    private func handOut(_ signed: [Signed]) -> [StoreTransaction] {
        var transactions: [StoreTransaction] = []
        for item in signed {
            seen[item.transaction.id] = item.transaction
            // One unreadable JWS must not hide the others; it stays unfinished in StoreKit.
            if let transaction = try? StoreTransaction(jws: item.jws) { transactions.append(transaction) }
        }
        return transactions
    }

    /// Loads the product and shows the payment sheet. On the main actor because the sheet is UI
    /// and StoreKit declares `purchase(options:)` there; only Sendable values leave it.
    @MainActor
    private static func buy(_ productID: String, options: StorePurchaseOptions) async throws -> Outcome {
        if loaded[productID] == nil { remember(try await StoreKit.Product.products(for: [productID])) }
        guard let product = loaded[productID] else {
            throw TallyError(.productNotFound, "the App Store does not sell \(productID) in this storefront")
        }
        var purchaseOptions: Set<StoreKit.Product.PurchaseOption> = []
        if let token = options.appAccountToken {
            purchaseOptions.insert(.appAccountToken(token))
        }
        if options.quantity != 1 {
            purchaseOptions.insert(.quantity(options.quantity))
        }
        if let offerID = options.winBackOfferID {
            guard #available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *),
                let offer = product.subscription?.winBackOffers.first(where: { $0.id == offerID })
            else {
                throw TallyError(.offerNotEligible, "\(productID) has no win-back offer \(offerID) for this customer")
            }
            purchaseOptions.insert(.winBackOffer(offer))
        }
        if let offer = options.promotionalOffer {
            purchaseOptions.insert(
                .promotionalOffer(
                    offerID: offer.offerID, keyID: offer.keyID, nonce: offer.nonce, signature: offer.signature,
                    timestamp: offer.timestamp))
        }
        let result: StoreKit.Product.PurchaseResult
        do {
            result = try await purchase(product, options: purchaseOptions, in: options.scene)
        } catch StoreKitError.userCancelled {
            return .cancelled
        }
        switch result {
        case .success(let verification):
            return .paid(Signed(verification))
        case .userCancelled:
            return .cancelled
        case .pending:
            return .pending
        @unknown default:
            // Pending keeps the order open: if a transaction comes of it, the updates bring it.
            return .pending
        }
    }

    /// Shows the payment sheet in the scene the app gave (`purchase(confirmIn:)`, iOS 17, tvOS 17
    /// and visionOS), so a multi-window app gets it in the window the customer uses. Without
    /// one, `purchase(options:)`: StoreKit chooses the window. visionOS has no
    /// `purchase(options:)`, and the scene in front is not looked up here (that needs
    /// `UIApplication.shared`, which app extensions may not use): the app gives one.
    @MainActor
    private static func purchase(
        _ product: StoreKit.Product, options: Set<StoreKit.Product.PurchaseOption>, in given: PurchaseScene?
    ) async throws
        -> StoreKit.Product.PurchaseResult
    {
        #if canImport(UIKit) && !os(watchOS)
        if #available(iOS 17, tvOS 17, visionOS 1, *), let scene = given?.scene {
            return try await product.purchase(confirmIn: scene, options: options)
        }
        #endif
        #if os(visionOS)
        throw TallyError(
            .configurationInvalid,
            given == nil
                ? "on visionOS the payment sheet needs a scene: give confirmIn: (PurchaseScene.inFront in an app)"
                : "the scene given to show the payment sheet in was closed")
        #else
        return try await product.purchase(options: options)
        #endif
    }

    private static func unfinished() async -> [Signed] {
        var signed: [Signed] = []
        for await result in StoreKit.Transaction.unfinished {
            signed.append(Signed(result))
        }
        return signed
    }

    private static func all() async -> [Signed] {
        var signed: [Signed] = []
        for await result in StoreKit.Transaction.all {
            signed.append(Signed(result))
        }
        return signed
    }

    private static func entitlements() async -> [Signed] {
        var signed: [Signed] = []
        for await result in StoreKit.Transaction.currentEntitlements {
            signed.append(Signed(result))
        }
        return signed
    }

    // MARK: - Mapping

    /// StoreKit's errors as ``TallyError`` codes; what has no code of its own gets `otherwise`.
    static func error(_ error: any Error, otherwise: TallyError.Code) -> TallyError {
        let code: TallyError.Code
        switch error {
        case let error as TallyError:
            return error
        case let error as StoreKit.Product.PurchaseError:
            switch error {
            case .purchaseNotAllowed: code = .paymentNotAllowed
            case .productUnavailable: code = .productNotFound
            case .ineligibleForOffer: code = .offerNotEligible
            // A quantity or an offer StoreKit refused: the request itself was wrong.
            default: code = .invalidRequest
            }
        case let error as StoreKitError:
            switch error {
            case .networkError: code = .networkError
            case .notAvailableInStorefront: code = .productNotFound
            case .unknown, .systemError: code = .storeUnavailable
            default: code = isNotEntitled(error) ? .invalidRequest : otherwise
            }
        case is URLError:
            code = .networkError
        default:
            code = otherwise
        }
        return TallyError(code, "StoreKit: \(error)")
    }

    /// `notEntitled` came with iOS 15.4 and macOS 12.3; before them StoreKit never reports it.
    private static func isNotEntitled(_ error: StoreKitError) -> Bool {
        guard #available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1, *) else { return false }
        if case .notEntitled = error { return true }
        return false
    }

    static func details(_ product: StoreKit.Product) -> ProductDetails {
        ProductDetails(
            id: product.id, kind: kind(product.type), displayName: product.displayName,
            description: product.description, displayPrice: product.displayPrice,
            price: ProductDetails.thousandths(product.price), currencyCode: product.priceFormatStyle.currencyCode,
            subscription: product.subscription.map { info in
                SubscriptionTerms(
                    period: Self.period(info.subscriptionPeriod), groupID: info.subscriptionGroupID,
                    introductoryOffer: info.introductoryOffer.map(Self.introductoryOffer))
            })
    }

    static func introductoryOffer(_ offer: StoreKit.Product.SubscriptionOffer) -> SubscriptionTerms.IntroductoryOffer {
        let mode: SubscriptionTerms.IntroductoryOffer.PaymentMode =
            switch offer.paymentMode {
            case .freeTrial: .freeTrial
            case .payUpFront: .payUpFront
            default: .payAsYouGo
            }
        return SubscriptionTerms.IntroductoryOffer(
            paymentMode: mode, period: period(offer.period), periodCount: offer.periodCount, displayPrice: offer.displayPrice)
    }

    static func kind(_ type: StoreKit.Product.ProductType) -> ProductKind {
        switch type {
        case .consumable: .consumable
        case .nonConsumable: .nonConsumable
        case .nonRenewable: .nonRenewing
        case .autoRenewable: .autoRenewable
        // A kind StoreKit adds later: kept, not consumed, until the catalog says otherwise.
        default: .nonConsumable
        }
    }

    static func period(_ period: StoreKit.Product.SubscriptionPeriod) -> SubscriptionTerms.Period {
        let unit: SubscriptionTerms.Period.Unit =
            switch period.unit {
            case .day: .day
            case .week: .week
            case .month: .month
            default: .year
            }
        return SubscriptionTerms.Period(value: period.value, unit: unit)
    }

}
#endif
