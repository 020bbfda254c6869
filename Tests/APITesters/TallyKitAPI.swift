// The public API of TallyKit, pinned: every public declaration is referenced once, with its
// type written out, in functions that are never called. scripts/check_api.sh typechecks this
// file and checks that every public symbol of the module is referenced here, so a change of the
// public surface (a symbol added, removed, renamed, or its type changed) fails the test command.
// Drafted by scripts/api_tester.py from the module's symbol graph, then fixed by hand.

import Foundation
import StoreKit
import TallyCore
import TallyKit
import TallyTesting
import TallyVerify

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A value of any type, for arguments of the right type in calls that never run.
private func value<T>(_: T.Type = T.self) -> T { fatalError("never called") }

@MainActor func checkAccessModel() async throws {
    _ = AccessModel.self
    let _: KeyPath<AccessModel, AccountState?> = \.account
    let _: KeyPath<AccessModel, PurchaseManager.AccessDestination?> = \.destination
    let _: AccessModel = await AccessModel(manager: value() as PurchaseManager, entitlement: value() as String)
    let _: KeyPath<AccessModel, (@MainActor (AccessModel) -> Void)?> = \.onChange
    await (value() as AccessModel).stop()
    await (value() as AccessModel).update(policy: value() as FetchPolicy)
}

@MainActor func checkAccountSnapshot() async throws {
    _ = AccountSnapshot.self
    let _: Balance = await (value() as AccountSnapshot).balance(value() as String)
    let _: KeyPath<AccountSnapshot, [Balance]> = \.balances
    let _: KeyPath<AccountSnapshot, [Entitlement]> = \.entitlements
    let _: AccountSnapshot = await AccountSnapshot(balances: value() as [Balance], entitlements: value() as [Entitlement])
    let _: AccountSnapshot = try await AccountSnapshot(from: value() as any Decoder)
    let _: Bool = await (value() as AccountSnapshot).isActive(value() as String)
    let _: KeyPath<AccountSnapshot, ResponseTrust?> = \.trust
}

@MainActor func checkAccountState() async throws {
    _ = AccountState.self
    _ = AccountState.Source.self
    let _: AccountState.Source = .cache
    let _: AccountState.Source = .fetched
    let _: AccountState.Source? = await AccountState.Source(rawValue: value() as String)
    let _: AccountState.Source = .none
    let _: KeyPath<AccountState, Date> = \.asOf
    let _: Balance = await (value() as AccountState).balance(value() as String)
    let _: KeyPath<AccountState, Date?> = \.fetchedAt
    let _: Bool = await (value() as AccountState).isActive(value() as String)
    let _: KeyPath<AccountState, Bool> = \.isStale
    let _: KeyPath<AccountState, AccountSnapshot> = \.snapshot
    let _: KeyPath<AccountState, AccountState.Source> = \.source
}

@MainActor func checkAnalyticsSink<Instance: AnalyticsSink>(_ instance: Instance) async throws {
    _ = (any AnalyticsSink).self
    await instance.record(value() as PurchaseEvent)
}

@MainActor func checkAnalyticsStream() async throws {
    _ = AnalyticsStream.self
    let _: KeyPath<AnalyticsStream, AsyncStream<PurchaseEvent>> = \.events
    let _: AnalyticsStream = await AnalyticsStream()
    await (value() as AnalyticsStream).record(value() as PurchaseEvent)
}

@MainActor func checkAppPurchase() async throws {
    _ = AppPurchase.self
    let _: KeyPath<AppPurchase, String?> = \.appTransactionID
    let _: KeyPath<AppPurchase, String?> = \.applicationVersion
    let _: KeyPath<AppPurchase, AppStoreEnvironment?> = \.environment
    let _: Bool = await (value() as AppPurchase).firstVersion(isBefore: value() as String)
    let _: AppPurchase = await AppPurchase(value() as AppTransactionPayload)
    let _: AppPurchase = await AppPurchase(value() as AppReceipt)
    let _: KeyPath<AppPurchase, String?> = \.originalApplicationVersion
    let _: KeyPath<AppPurchase, Date?> = \.originalPurchaseDate
    let _: KeyPath<AppPurchase, Date?> = \.preorderDate
}

@MainActor func checkClosureAnalytics() async throws {
    _ = ClosureAnalytics.self
    let _: ClosureAnalytics = await ClosureAnalytics(value() as @Sendable (PurchaseEvent) async -> Void)
    await (value() as ClosureAnalytics).record(value() as PurchaseEvent)
}

@MainActor func checkClosureLogSink() async throws {
    _ = ClosureLogSink.self
    let _: ClosureLogSink = await ClosureLogSink(value() as @Sendable (LogMessage) -> Void)
    await (value() as ClosureLogSink).log(value() as LogMessage)
}

@MainActor func checkConnectivity<Instance: Connectivity>(_ instance: Instance) async throws {
    _ = (any Connectivity).self
    let _: Bool = await instance.isOnline()
}

@MainActor func checkCreditHistory() async throws {
    _ = CreditHistory.self
    _ = CreditHistory.Acquisition.self
    let _: KeyPath<CreditHistory.Acquisition, Date> = \.acquiredAt
    let _: KeyPath<CreditHistory.Acquisition, Int64> = \.amount
    let _: KeyPath<CreditHistory.Acquisition, String> = \.currency
    let _: CreditHistory.Acquisition = await CreditHistory.Acquisition(
        transactionID: value() as String?, currency: value() as String, amount: value() as Int64, acquiredAt: value() as Date, remaining: value() as Int64?)
    let _: KeyPath<CreditHistory.Acquisition, Int64?> = \.remaining
    let _: KeyPath<CreditHistory.Acquisition, String?> = \.transactionID
    _ = CreditHistory.Consumption.self
    let _: KeyPath<CreditHistory.Consumption, Int64> = \.amount
    let _: KeyPath<CreditHistory.Consumption, String> = \.currency
    let _: KeyPath<CreditHistory.Consumption, Date> = \.date
    let _: KeyPath<CreditHistory.Consumption, String> = \.id
    let _: CreditHistory.Consumption = await CreditHistory.Consumption(
        id: value() as String, currency: value() as String, amount: value() as Int64, reference: value() as String?, date: value() as Date,
        sources: value() as [CreditHistory.Source])
    let _: KeyPath<CreditHistory.Consumption, String?> = \.reference
    let _: KeyPath<CreditHistory.Consumption, [CreditHistory.Source]> = \.sources
    _ = CreditHistory.Source.self
    let _: KeyPath<CreditHistory.Source, Date> = \.acquiredAt
    let _: KeyPath<CreditHistory.Source, Int64> = \.amount
    let _: CreditHistory.Source = await CreditHistory.Source(transactionID: value() as String?, acquiredAt: value() as Date, amount: value() as Int64)
    let _: KeyPath<CreditHistory.Source, String?> = \.transactionID
    let _: KeyPath<CreditHistory, [CreditHistory.Acquisition]> = \.acquisitions
    let _: KeyPath<CreditHistory, [CreditHistory.Consumption]> = \.consumptions
    let _: CreditHistory = await CreditHistory(acquisitions: value() as [CreditHistory.Acquisition], consumptions: value() as [CreditHistory.Consumption])
}

@MainActor func checkCreditsBalanceModel() async throws {
    _ = CreditsBalanceModel.self
    let _: KeyPath<CreditsBalanceModel, Int64> = \.balance
    let _: KeyPath<CreditsBalanceModel, String> = \.currency
    let _: KeyPath<CreditsBalanceModel, Int64> = \.displayed
    let _: String = await (value() as CreditsBalanceModel).displayedText(in: value() as TallyLanguage)
    let _: KeyPath<CreditsBalanceModel, TimeInterval> = \.duration
    let _: CreditsBalanceModel = try await CreditsBalanceModel(
        manager: value() as PurchaseManager, currency: value() as String, duration: value() as TimeInterval, steps: value() as Int,
        sleep: value() as @Sendable (TimeInterval) async throws -> Void)
    let _: KeyPath<CreditsBalanceModel, Bool> = \.isAnimating
    let _: KeyPath<CreditsBalanceModel, (@MainActor (CreditsBalanceModel) -> Void)?> = \.onChange
    let _: KeyPath<CreditsBalanceModel, Int> = \.steps
    await (value() as CreditsBalanceModel).stop()
    await (value() as CreditsBalanceModel).update(policy: value() as FetchPolicy)
}

@MainActor func checkDelivery<Instance: Delivery>(_ instance: Instance) async throws {
    _ = (any Delivery).self
    try await instance.abandon(value() as PurchaseTicket, reason: value() as String)
    let _: AccountSnapshot = try await instance.account(storeEntitlements: value() as [StoreTransaction])
    let _: AccountSnapshot = try await instance.account(storeEntitlements: value() as [StoreTransaction], renewals: value() as [String])
    let _: AppPurchase = try await instance.appPurchase(value() as TransactionEvidence)
    let _: AppPurchase = try await instance.appPurchase(value() as TransactionEvidence)
    let _: [ProductGrant] = try await instance.catalog(language: value() as TallyLanguage)
    let _: Reservation = try await instance.commit(reservationID: value() as String, used: value() as Int64)
    let _: CreditHistory = try await instance.creditHistory(currency: value() as String?)
    let _: DeliveryReceipt = try await instance.deliver(value() as StoreTransaction, ticket: value() as PurchaseTicket?)
    let _: AccountSnapshot? = try await instance.localAccount()
    let _: PurchaseTicket = try await instance.prepare(productID: value() as String)
    let _: Reservation = try await instance.release(reservationID: value() as String)
    let _: Reservation = try await instance.reserve(value() as ReservationOrder)
    let _: SpendResponse = try await instance.spend(value() as SpendOrder)
}

@MainActor func checkDeliveryReceipt() async throws {
    _ = DeliveryReceipt.self
}

@MainActor func checkDeviceStore() async throws {
    _ = DeviceStore.self
    let _: any Store = await DeviceStore.automatic(productKinds: value() as [String: ProductKind])
    let _: UUID? = await DeviceStore.deviceVerificationID
}

@MainActor func checkErrorPresentation() async throws {
    _ = ErrorPresentation.self
    _ = ErrorPresentation.Action.self
    let _: ErrorPresentation.Action? = await ErrorPresentation.Action(rawValue: value() as String)
    let _: ErrorPresentation.Action = .ok
    let _: ErrorPresentation.Action = .tryAgain
    let _: KeyPath<ErrorPresentation, ErrorPresentation.Action> = \.action
    let _: KeyPath<ErrorPresentation, String> = \.actionTitle
    let _: KeyPath<ErrorPresentation, String> = \.message
    let _: KeyPath<ErrorPresentation, String> = \.title
}

@MainActor func checkFetchPolicy() async throws {
    _ = FetchPolicy.self
    let _: FetchPolicy = .cachedOrFetched
    let _: FetchPolicy = .fetchCurrent
    let _: FetchPolicy = .fromCacheOnly
    let _: FetchPolicy? = await FetchPolicy(rawValue: value() as String)
    let _: FetchPolicy = .notStaleCachedOrFetched
}

@MainActor func checkHTTPTransport<Instance: HTTPTransport>(_ instance: Instance) async throws {
    _ = (any HTTPTransport).self
    let _: (status: Int, headers: [String: String], body: Data) = try await instance.send(value() as URLRequest)
}

@MainActor func checkInsufficientCreditsAlert() async throws {
    _ = InsufficientCreditsAlert.self
    let _: KeyPath<InsufficientCreditsAlert, String> = \.buyTitle
    let _: KeyPath<InsufficientCreditsAlert, String> = \.cancelTitle
    let _: KeyPath<InsufficientCreditsAlert, String?> = \.currency
    let _: InsufficientCreditsAlert? = await InsufficientCreditsAlert(value() as TallyError, language: value() as TallyLanguage)
    let _: KeyPath<InsufficientCreditsAlert, String> = \.message
    let _: KeyPath<InsufficientCreditsAlert, String> = \.title
}

@MainActor func checkLocalDatabase() async throws {
    _ = LocalDatabase.self
    let _: LocalDatabase = try await LocalDatabase(path: value() as String)
    let _: KeyPath<LocalDatabase, String> = \.path
    let _: LocalDatabase = try await LocalDatabase.standard(named: value() as String)
}

@MainActor func checkLogMessage() async throws {
    _ = LogMessage.self
    _ = LogMessage.Operation.self
    let _: LogMessage.Operation = .closeOrder
    let _: LogMessage.Operation = .completeIntent
    let _: LogMessage.Operation = .completeOnboarding
    let _: LogMessage.Operation = .finish
    let _: LogMessage.Operation? = await LogMessage.Operation(rawValue: value() as String)
    let _: LogMessage.Operation = .loadProducts
    let _: LogMessage.Operation = .readCache
    let _: LogMessage.Operation = .readHistory
    let _: LogMessage.Operation = .readJournal
    let _: LogMessage.Operation = .readOnboarding
    let _: LogMessage.Operation = .readUnfinished
    let _: LogMessage.Operation = .recordFailure
    let _: LogMessage.Operation = .recordIntent
    let _: LogMessage.Operation = .refresh
    let _: KeyPath<LogMessage, String?> = \.code
    let _: LogMessage = .deliveryFailed(transactionID: value() as String, code: value() as String, reason: value() as String)
    let _: LogMessage = .deliveryRefused(transactionID: value() as String, productID: value() as String, code: value() as String, reason: value() as String)
    let _: LogMessage = .finished(transactionID: value() as String, productID: value() as String)
    let _: KeyPath<LogMessage, TallyLogLevel> = \.level
    let _: LogMessage = .operationFailed(value() as LogMessage.Operation, code: value() as String, reason: value() as String)
    let _: LogMessage = .refundTakenBack(transactionID: value() as String, productID: value() as String)
    let _: LogMessage = .rejectedBackedOff(transactionID: value() as String, nextTry: value() as Date)
    let _: LogMessage = .restoreFailed(code: value() as String, reason: value() as String)
    let _: LogMessage = .restored(delivered: value() as Int, failed: value() as Int)
    let _: LogMessage = .retryScheduled(transactionID: value() as String, seconds: value() as TimeInterval, failures: value() as Int)
    let _: KeyPath<LogMessage, String> = \.text
    let _: KeyPath<LogMessage, String?> = \.transactionID
    let _: LogMessage = .verificationRefused(transactionID: value() as String, productID: value() as String, code: value() as String, reason: value() as String)
}

@MainActor func checkManualConnectivity() async throws {
    _ = ManualConnectivity.self
    let _: ManualConnectivity = await ManualConnectivity(online: value() as Bool)
    let _: Bool = await (value() as ManualConnectivity).isOnline()
    await (value() as ManualConnectivity).set(online: value() as Bool)
}

@MainActor func checkNetworkPathConnectivity() async throws {
    _ = NetworkPathConnectivity.self
    let _: NetworkPathConnectivity = await NetworkPathConnectivity()
    let _: Bool = await (value() as NetworkPathConnectivity).isOnline()
}

@MainActor func checkNoAnalytics() async throws {
    _ = NoAnalytics.self
    let _: NoAnalytics = await NoAnalytics()
    await (value() as NoAnalytics).record(value() as PurchaseEvent)
}

@MainActor func checkOnDeviceCatalog() async throws {
    _ = OnDeviceCatalog.self
    _ = OnDeviceCatalog.Product.self
    let _: KeyPath<OnDeviceCatalog.Product, Int?> = \.durationDays
    let _: KeyPath<OnDeviceCatalog.Product, [String]> = \.entitlements
    let _: KeyPath<OnDeviceCatalog.Product, [Amount]> = \.grants
    let _: KeyPath<OnDeviceCatalog.Product, String> = \.id
    let _: OnDeviceCatalog.Product = await OnDeviceCatalog.Product(
        id: value() as String, kind: value() as ProductKind, grants: value() as [Amount], entitlements: value() as [String],
        paywall: value() as [TallyLanguage: PaywallText], durationDays: value() as Int?)
    let _: KeyPath<OnDeviceCatalog.Product, ProductKind> = \.kind
    let _: KeyPath<OnDeviceCatalog.Product, [TallyLanguage: PaywallText]> = \.paywall
    let _: OnDeviceCatalog = await OnDeviceCatalog(value() as TallyCatalog)
    let _: OnDeviceCatalog = await OnDeviceCatalog(products: value() as [OnDeviceCatalog.Product])
    let _: KeyPath<OnDeviceCatalog, [String: ProductKind]> = \.kinds
    let _: OnDeviceCatalog = try await OnDeviceCatalog.load(contentsOf: value() as URL)
    let _: KeyPath<OnDeviceCatalog, String?> = \.problem
    let _: OnDeviceCatalog.Product? = await (value() as OnDeviceCatalog).product(value() as String)
    let _: KeyPath<OnDeviceCatalog, [OnDeviceCatalog.Product]> = \.products
}

@MainActor func checkOnDeviceLedger() async throws {
    _ = OnDeviceLedger.self
    try await (value() as OnDeviceLedger).abandon(value() as PurchaseTicket, reason: value() as String)
    let _: AccountSnapshot = try await (value() as OnDeviceLedger).account(storeEntitlements: value() as [StoreTransaction], renewals: value() as [String])
    let _: AppPurchase = try await (value() as OnDeviceLedger).appPurchase(value() as TransactionEvidence)
    let _: Bool = try await (value() as OnDeviceLedger).balancesMatchEntries()
    let _: KeyPath<OnDeviceLedger, OnDeviceCatalog> = \.catalog
    let _: [ProductGrant] = try await (value() as OnDeviceLedger).catalog(language: value() as TallyLanguage)
    let _: Reservation = try await (value() as OnDeviceLedger).commit(reservationID: value() as String, used: value() as Int64)
    let _: CreditHistory = try await (value() as OnDeviceLedger).creditHistory(currency: value() as String?)
    let _: DeliveryReceipt = try await (value() as OnDeviceLedger).deliver(value() as StoreTransaction, ticket: value() as PurchaseTicket?)
    let _: OnDeviceLedger = try await OnDeviceLedger(
        database: value() as LocalDatabase, catalog: value() as OnDeviceCatalog, verifier: value() as SignedDataVerifier,
        receiptVerifier: value() as ReceiptVerifier?, deviceIdentifier: value() as DeviceIdentifier?, deviceVerificationID: value() as UUID?,
        storeKit1: value() as Bool, now: value() as @Sendable () -> Date, uptime: value() as @Sendable () -> TimeInterval)
    let _: AccountSnapshot? = try await (value() as OnDeviceLedger).localAccount()
    let _: PurchaseTicket = try await (value() as OnDeviceLedger).prepare(productID: value() as String)
    let _: Reservation = try await (value() as OnDeviceLedger).release(reservationID: value() as String)
    let _: Reservation = try await (value() as OnDeviceLedger).reserve(value() as ReservationOrder)
    let _: SpendResponse = try await (value() as OnDeviceLedger).spend(value() as SpendOrder)
    let _: Bool = await OnDeviceLedger.storeKit1CanRun
}

@MainActor func checkPaywallModel() async throws {
    _ = PaywallModel.self
    _ = PaywallModel.ButtonState.self
    let _: PaywallModel.ButtonState = .disabled
    let _: PaywallModel.ButtonState = .idle
    let _: PaywallModel.ButtonState? = await PaywallModel.ButtonState(rawValue: value() as String)
    let _: PaywallModel.ButtonState = .purchasing
    _ = PaywallModel.Item.self
    let _: KeyPath<PaywallModel.Item, String?> = \.aiExplanation
    let _: KeyPath<PaywallModel.Item, [String]> = \.benefits
    let _: KeyPath<PaywallModel.Item, String?> = \.billingText
    let _: KeyPath<PaywallModel.Item, PaywallModel.ButtonState> = \.button
    let _: KeyPath<PaywallModel.Item, String> = \.buttonTitle
    let _: KeyPath<PaywallModel.Item, String> = \.description
    let _: KeyPath<PaywallModel.Item, String?> = \.disabledReason
    let _: KeyPath<PaywallModel.Item, String?> = \.displayPrice
    let _: KeyPath<PaywallModel.Item, String> = \.id
    let _: KeyPath<PaywallModel.Item, String?> = \.introductoryOffer
    let _: KeyPath<PaywallModel.Item, String> = \.title
    _ = PaywallModel.RestoreOutcome.self
    let _: PaywallModel.RestoreOutcome? = await PaywallModel.RestoreOutcome(rawValue: value() as String)
    let _: PaywallModel.RestoreOutcome = .nothingToRestore
    let _: PaywallModel.RestoreOutcome = .restored
    await (value() as PaywallModel).dismissError()
    let _: KeyPath<PaywallModel, ErrorPresentation?> = \.error
    let _: KeyPath<PaywallModel, TallyError.Code?> = \.errorCode
    let _: PaywallModel = await PaywallModel(manager: value() as PurchaseManager, productIDs: value() as [String]?, language: value() as TallyLanguage?)
    let _: KeyPath<PaywallModel, Bool> = \.isPending
    let _: KeyPath<PaywallModel, Bool> = \.isProcessing
    let _: KeyPath<PaywallModel, [PaywallModel.Item]> = \.items
    let _: KeyPath<PaywallModel, TallyLanguage> = \.language
    let _: KeyPath<PaywallModel, DeliveryReceipt?> = \.lastPurchase
    await (value() as PaywallModel).load()
    let _: KeyPath<PaywallModel, String> = \.manageTitle
    let _: KeyPath<PaywallModel, (@MainActor (PaywallModel) -> Void)?> = \.onChange
    let _: KeyPath<PaywallModel, String> = \.pendingMessage
    let _: KeyPath<PaywallModel, String> = \.privacyTitle
    let _: KeyPath<PaywallModel, String> = \.processingMessage
    let _: PurchaseManager.PurchaseOutcome? = await (value() as PaywallModel).purchase(value() as String)
    let _: PurchaseManager.PurchaseOutcome? = await (value() as PaywallModel).purchase(value() as String, confirmIn: value() as PurchaseScene?)
    await (value() as PaywallModel).restore()
    let _: KeyPath<PaywallModel, String?> = \.restoreMessage
    let _: KeyPath<PaywallModel, PaywallModel.RestoreOutcome?> = \.restoreOutcome
    let _: KeyPath<PaywallModel, String> = \.restoreTitle
    let _: KeyPath<PaywallModel, Bool> = \.sellsSubscriptions
    let _: KeyPath<PaywallModel, String> = \.termsTitle
    await (value() as PaywallModel).tryAgain()
}

@MainActor func checkProductDetails() async throws {
    _ = ProductDetails.self
    let _: KeyPath<ProductDetails, String> = \.currencyCode
    let _: KeyPath<ProductDetails, String> = \.description
    let _: KeyPath<ProductDetails, String> = \.displayName
    let _: KeyPath<ProductDetails, String> = \.displayPrice
    let _: KeyPath<ProductDetails, String> = \.id
    let _: ProductDetails = await ProductDetails(
        id: value() as String, kind: value() as ProductKind, displayName: value() as String, description: value() as String, displayPrice: value() as String,
        price: value() as Int64, currencyCode: value() as String, subscription: value() as SubscriptionTerms?)
    let _: KeyPath<ProductDetails, ProductKind> = \.kind
    let _: KeyPath<ProductDetails, Int64> = \.price
    let _: KeyPath<ProductDetails, SubscriptionTerms?> = \.subscription
}

@MainActor func checkProductGrant() async throws {
    _ = ProductGrant.self
    let _: KeyPath<ProductGrant, Amount?> = \.allowance
    let _: KeyPath<ProductGrant, Int?> = \.durationDays
    let _: KeyPath<ProductGrant, [String]> = \.entitlements
    let _: KeyPath<ProductGrant, [Amount]> = \.grants
    let _: KeyPath<ProductGrant, String> = \.id
    let _: ProductGrant = try await ProductGrant(from: value() as any Decoder)
    let _: ProductGrant = await ProductGrant(
        id: value() as String, kind: value() as ProductKind, grants: value() as [Amount], entitlements: value() as [String], allowance: value() as Amount?,
        paywall: value() as PaywallText, durationDays: value() as Int?)
    let _: KeyPath<ProductGrant, ProductKind> = \.kind
    let _: KeyPath<ProductGrant, PaywallText> = \.paywall
}

@MainActor func checkPromotionalOffer() async throws {
    _ = PromotionalOffer.self
    let _: PromotionalOffer = await PromotionalOffer(
        offerID: value() as String, keyID: value() as String, nonce: value() as UUID, signature: value() as Data, timestamp: value() as Int)
    let _: KeyPath<PromotionalOffer, String> = \.keyID
    let _: KeyPath<PromotionalOffer, UUID> = \.nonce
    let _: KeyPath<PromotionalOffer, String> = \.offerID
    let _: KeyPath<PromotionalOffer, Data> = \.signature
    let _: KeyPath<PromotionalOffer, Int> = \.timestamp
}

@MainActor func checkPurchaseEvent() async throws {
    _ = PurchaseEvent.self
    _ = PurchaseEvent.Kind.self
    let _: PurchaseEvent.Kind = .cancelled
    let _: PurchaseEvent.Kind = .completed
    let _: PurchaseEvent.Kind = .failed
    let _: PurchaseEvent.Kind? = await PurchaseEvent.Kind(rawValue: value() as String)
    let _: PurchaseEvent.Kind = .pending
    let _: PurchaseEvent.Kind = .refunded
    let _: PurchaseEvent.Kind = .restored
    let _: PurchaseEvent.Kind = .started
    let _: KeyPath<PurchaseEvent, String?> = \.currency
    let _: KeyPath<PurchaseEvent, Date> = \.date
    let _: KeyPath<PurchaseEvent, String?> = \.errorCode
    let _: KeyPath<PurchaseEvent, [Amount]> = \.granted
    let _: KeyPath<PurchaseEvent, PurchaseEvent.Kind> = \.kind
    let _: KeyPath<PurchaseEvent, Int64?> = \.price
    let _: KeyPath<PurchaseEvent, String> = \.productID
    let _: KeyPath<PurchaseEvent, String?> = \.transactionID
}

@MainActor func checkPurchaseJournal() async throws {
    _ = PurchaseJournal.self
    _ = PurchaseJournal.Entry.self
    let _: KeyPath<PurchaseJournal.Entry, Int> = \.attempts
    let _: KeyPath<PurchaseJournal.Entry, String> = \.eventID
    let _: KeyPath<PurchaseJournal.Entry, String?> = \.lastError
    let _: KeyPath<PurchaseJournal.Entry, String?> = \.orderID
    let _: KeyPath<PurchaseJournal.Entry, DeliveryReceipt?> = \.receipt
    let _: KeyPath<PurchaseJournal.Entry, PurchaseJournal.State> = \.state
    let _: KeyPath<PurchaseJournal.Entry, StoreTransaction> = \.transaction
    let _: KeyPath<PurchaseJournal.Entry, Date> = \.updatedAt
    _ = PurchaseJournal.Intent.self
    let _: KeyPath<PurchaseJournal.Intent, Date> = \.createdAt
    let _: KeyPath<PurchaseJournal.Intent, String> = \.id
    let _: KeyPath<PurchaseJournal.Intent, String> = \.state
    let _: KeyPath<PurchaseJournal.Intent, PurchaseTicket> = \.ticket
    _ = PurchaseJournal.State.self
    let _: PurchaseJournal.State = .delivered
    let _: PurchaseJournal.State = .finished
    let _: PurchaseJournal.State? = await PurchaseJournal.State(rawValue: value() as String)
    let _: PurchaseJournal.State = .received
    let _: PurchaseJournal.State = .rejected
    let _: [PurchaseJournal.Entry] = try await (value() as PurchaseJournal).all()
    let _: PurchaseJournal = await PurchaseJournal(database: value() as LocalDatabase)
    let _: [PurchaseJournal.Intent] = try await (value() as PurchaseJournal).intents()
    let _: [PurchaseJournal.Entry] = try await (value() as PurchaseJournal).unfinished()
}

@MainActor func checkPurchaseManager() async throws {
    _ = PurchaseManager.self
    _ = PurchaseManager.AccessDestination.self
    let _: PurchaseManager.AccessDestination = .checking
    let _: PurchaseManager.AccessDestination? = await PurchaseManager.AccessDestination(rawValue: value() as String)
    let _: PurchaseManager.AccessDestination = .main
    let _: PurchaseManager.AccessDestination = .onboarding
    let _: PurchaseManager.AccessDestination = .paywall
    _ = PurchaseManager.Configuration.self
    let _: KeyPath<PurchaseManager.Configuration, TimeInterval> = \.abandonUnpaidAfter
    let _: KeyPath<PurchaseManager.Configuration, Int> = \.attemptsDuringPurchase
    let _: KeyPath<PurchaseManager.Configuration, Bool> = \.blocksPurchaseWhileCreditUnused
    let _: KeyPath<PurchaseManager.Configuration, TimeInterval> = \.cacheLifetime
    let _: KeyPath<PurchaseManager.Configuration, (@Sendable (PurchaseStep, String) async -> Void)?> = \.checkpoint
    let _: KeyPath<PurchaseManager.Configuration, Bool> = \.completesPurchaseIntents
    let _: KeyPath<PurchaseManager.Configuration, Int64> = \.consumeHoldSeconds
    let _: PurchaseManager.Configuration = await PurchaseManager.Configuration(productIDs: value() as [String])
    let _: KeyPath<PurchaseManager.Configuration, TallyLanguage> = \.language
    let _: KeyPath<PurchaseManager.Configuration, TallyLog> = \.log
    let _: KeyPath<PurchaseManager.Configuration, TimeInterval?> = \.offlineAccessWindow
    let _: KeyPath<PurchaseManager.Configuration, TimeInterval> = \.offlineBalanceWindow
    let _: KeyPath<PurchaseManager.Configuration, String?> = \.onboardingEntitlement
    let _: KeyPath<PurchaseManager.Configuration, [String]> = \.productIDs
    let _: KeyPath<PurchaseManager.Configuration, TimeInterval?> = \.refreshInterval
    let _: KeyPath<PurchaseManager.Configuration, TimeInterval> = \.rejectedRetryInterval
    let _: KeyPath<PurchaseManager.Configuration, RetryPolicy> = \.retry
    let _: KeyPath<PurchaseManager.Configuration, String> = \.scope
    _ = PurchaseManager.LockState.self
    let _: PurchaseManager.LockState? = await PurchaseManager.LockState(rawValue: value() as String)
    let _: PurchaseManager.LockState = .locked
    let _: PurchaseManager.LockState = .unlocked
    _ = PurchaseManager.PurchaseOutcome.self
    let _: PurchaseManager.PurchaseOutcome = .cancelled
    let _: PurchaseManager.PurchaseOutcome = .deliveryPending(transactionID: value() as String)
    let _: PurchaseManager.PurchaseOutcome = .pending
    let _: PurchaseManager.PurchaseOutcome = .purchased(value() as DeliveryReceipt)
    _ = PurchaseManager.RestoreResult.self
    let _: KeyPath<PurchaseManager.RestoreResult, AccountState> = \.account
    let _: KeyPath<PurchaseManager.RestoreResult, [DeliveryReceipt]> = \.receipts
    _ = PurchaseManager.StartupState.self
    let _: PurchaseManager.StartupState = .catchingUp
    let _: PurchaseManager.StartupState = .caughtUp
    let _: PurchaseManager.StartupState? = await PurchaseManager.StartupState(rawValue: value() as String)
    let _: PurchaseManager.StartupState = .stopped
    let _: AccountState = try await (value() as PurchaseManager).account(value() as FetchPolicy)
    let _: AsyncStream<AccountState> = await (value() as PurchaseManager).accountUpdates()
    let _: AppPurchase = try await (value() as PurchaseManager).appPurchase()
    let _: Balance = try await (value() as PurchaseManager).balance(of: value() as String, policy: value() as FetchPolicy)
    let _: AsyncStream<[Balance]> = await (value() as PurchaseManager).balanceUpdates()
    let _: [ProductGrant] = try await (value() as PurchaseManager).catalog(language: value() as TallyLanguage?)
    let _: Reservation? = try await (value() as PurchaseManager).commit(value() as Reservation, used: value() as Int64)
    let _: PurchaseManager.Configuration = await (value() as PurchaseManager).configuration
    // Generic over the work's result: pinned with Int.
    let _: Int = try await (value() as PurchaseManager).consume(
        value() as String, amount: value() as Int64, for: value() as String?, work: value() as @Sendable () async throws -> Int)
    let _: CreditHistory = try await (value() as PurchaseManager).creditHistory(currency: value() as String?)
    let _: PurchaseManager.AccessDestination = await (value() as PurchaseManager).destination(for: value() as String?, policy: value() as FetchPolicy)
    let _: AsyncStream<[Entitlement]> = await (value() as PurchaseManager).entitlementUpdates()
    let _: PurchaseManager = try await PurchaseManager(
        store: value() as any Store, delivery: value() as any Delivery, database: value() as LocalDatabase,
        configuration: value() as PurchaseManager.Configuration, connectivity: value() as (any Connectivity)?, analytics: value() as any AnalyticsSink,
        clock: value() as ContinuousClock, now: value() as @Sendable () -> Date, uptime: value() as @Sendable () -> TimeInterval)
    let _: PurchaseManager = try await PurchaseManager(
        store: value() as any Store, delivery: value() as any Delivery, database: value() as LocalDatabase,
        configuration: value() as PurchaseManager.Configuration, connectivity: value() as (any Connectivity)?, analytics: value() as any AnalyticsSink,
        sleep: value() as @Sendable (TimeInterval) async throws -> Void, now: value() as @Sendable () -> Date, uptime: value() as @Sendable () -> TimeInterval)
    let _: Bool = await (value() as PurchaseManager).isStarted
    let _: PurchaseJournal = await (value() as PurchaseManager).journal
    let _: PurchaseManager.LockState = await (value() as PurchaseManager).lockState(value() as String)
    let _: AsyncStream<[String: PurchaseManager.LockState]> = await (value() as PurchaseManager).lockStates(for: value() as [String])
    let _: PurchaseManager = try await PurchaseManager.onDevice(
        catalog: value() as OnDeviceCatalog, appAppleID: value() as Int64, bundleID: value() as String?, xcodeTestingCertificate: value() as Data?,
        configuration: value() as PurchaseManager.Configuration?, store: value() as (any Store)?, database: value() as LocalDatabase?,
        deviceIdentifier: value() as DeviceIdentifier?, deviceVerificationID: value() as UUID?,
        trust: value() as (inout SignedDataVerifier.Configuration, inout ReceiptVerifier.Configuration) -> Void, now: value() as @Sendable () -> Date)
    let _: [ProductDetails] = try await (value() as PurchaseManager).products()
    let _: PurchaseManager.PurchaseOutcome = try await (value() as PurchaseManager).purchase(
        value() as String, quantity: value() as Int, promotionalOffer: value() as PromotionalOffer?, winBackOfferID: value() as String?)
    let _: AsyncStream<StorePurchaseIntent> = await (value() as PurchaseManager).purchaseIntents()
    let _: AccountState = try await (value() as PurchaseManager).refresh()
    let _: Reservation = try await (value() as PurchaseManager).release(value() as Reservation)
    let _: Reservation = try await (value() as PurchaseManager).reserve(
        value() as String, amount: value() as Int64, ttlSeconds: value() as Int64, reference: value() as String?, idempotencyKey: value() as String)
    let _: PurchaseManager.RestoreResult = try await (value() as PurchaseManager).restore()
    let _: [DeliveryReceipt] = try await (value() as PurchaseManager).retryUndelivered()
    let _: Int = await (value() as PurchaseManager).scheduledRetries
    let _: PurchaseManager = try await PurchaseManager.server(
        url: value() as URL, credentials: value() as ServerDelivery.Credentials, productIDs: value() as [String],
        configuration: value() as PurchaseManager.Configuration?, store: value() as (any Store)?, database: value() as LocalDatabase?,
        responseCheck: value() as ServerDelivery.ResponseCheck, transport: value() as any HTTPTransport, now: value() as @Sendable () -> Date)
    let _: SpendResponse = try await (value() as PurchaseManager).spend(
        value() as String, amount: value() as Int64, reference: value() as String?, idempotencyKey: value() as String)
    await (value() as PurchaseManager).start()
    let _: PurchaseManager.StartupState = await (value() as PurchaseManager).startupState
    let _: AsyncStream<PurchaseManager.StartupState> = await (value() as PurchaseManager).startupUpdates()
    await (value() as PurchaseManager).stop()
    try await PurchaseManager.taskSleep(value() as TimeInterval)
    let _: TimeInterval = await PurchaseManager.timeSinceBoot()
    await (value() as PurchaseManager).waitUntilCaughtUp()
}

@MainActor func checkPurchaseStep() async throws {
    _ = PurchaseStep.self
    let _: PurchaseStep = .delivered
    let _: PurchaseStep = .finished
    let _: PurchaseStep? = await PurchaseStep(rawValue: value() as String)
    let _: PurchaseStep = .journaled
    let _: PurchaseStep = .paid
    let _: PurchaseStep = .recorded
}

@MainActor func checkPurchaseTicket() async throws {
    _ = PurchaseTicket.self
    let _: KeyPath<PurchaseTicket, UUID?> = \.appAccountToken
    let _: PurchaseTicket = try await PurchaseTicket(from: value() as any Decoder)
    let _: PurchaseTicket = await PurchaseTicket(productID: value() as String, orderID: value() as String?, appAccountToken: value() as UUID?)
    let _: KeyPath<PurchaseTicket, String?> = \.orderID
    let _: KeyPath<PurchaseTicket, String> = \.productID
}

@MainActor func checkReservationOrder() async throws {
    _ = ReservationOrder.self
    let _: KeyPath<ReservationOrder, Int64> = \.amount
    let _: KeyPath<ReservationOrder, String> = \.currency
    let _: KeyPath<ReservationOrder, String> = \.idempotencyKey
    let _: ReservationOrder = await ReservationOrder(
        currency: value() as String, amount: value() as Int64, ttlSeconds: value() as Int64, idempotencyKey: value() as String, reference: value() as String?)
    let _: ReservationOrder = try await ReservationOrder(from: value() as any Decoder)
    let _: KeyPath<ReservationOrder, String?> = \.reference
    let _: KeyPath<ReservationOrder, Int64> = \.ttlSeconds
}

@MainActor func checkResponseTrust() async throws {
    _ = ResponseTrust.self
    let _: KeyPath<ResponseTrust, ResponseVerifier.Failure?> = \.failure
    let _: ResponseTrust = try await ResponseTrust(from: value() as any Decoder)
    let _: ResponseTrust = await ResponseTrust(verified: value() as Bool, failure: value() as ResponseVerifier.Failure?)
    let _: KeyPath<ResponseTrust, Bool> = \.verified
}

@MainActor func checkRetryPolicy() async throws {
    _ = RetryPolicy.self
    let _: TimeInterval = await (value() as RetryPolicy).cap(afterFailures: value() as Int)
    var generator = SystemRandomNumberGenerator()
    let _: TimeInterval = await (value() as RetryPolicy).delay(afterFailures: value() as Int, atLeast: value() as TimeInterval, using: &generator)
    let _: RetryPolicy = await RetryPolicy(initialDelay: value() as TimeInterval, maximumDelay: value() as TimeInterval, jitter: value() as Bool)
    let _: KeyPath<RetryPolicy, TimeInterval> = \.initialDelay
    let _: KeyPath<RetryPolicy, Bool> = \.jitter
    let _: KeyPath<RetryPolicy, TimeInterval> = \.maximumDelay
    let _: RetryPolicy = await RetryPolicy.standard
}

@MainActor func checkServerDelivery() async throws {
    _ = ServerDelivery.self
    _ = ServerDelivery.Credentials.self
    let _: KeyPath<ServerDelivery.Credentials, UUID> = \.appAccountToken
    let _: ServerDelivery.Credentials = try await ServerDelivery.Credentials(from: value() as any Decoder)
    let _: ServerDelivery.Credentials = await ServerDelivery.Credentials(
        userID: value() as String, userToken: value() as String, appAccountToken: value() as UUID)
    let _: KeyPath<ServerDelivery.Credentials, String> = \.userID
    let _: KeyPath<ServerDelivery.Credentials, String> = \.userToken
    _ = ServerDelivery.ResponseCheck.self
    let _: ServerDelivery.ResponseCheck = .enforced(value() as ResponseVerifier)
    let _: ServerDelivery.ResponseCheck = .informational(value() as ResponseVerifier)
    let _: ServerDelivery.ResponseCheck = .off
    try await (value() as ServerDelivery).abandon(value() as PurchaseTicket, reason: value() as String)
    let _: AccountSnapshot = try await (value() as ServerDelivery).account(storeEntitlements: value() as [StoreTransaction], renewals: value() as [String])
    let _: KeyPath<ServerDelivery, URL> = \.baseURL
    let _: [ProductGrant] = try await (value() as ServerDelivery).catalog(language: value() as TallyLanguage)
    let _: Reservation = try await (value() as ServerDelivery).commit(reservationID: value() as String, used: value() as Int64)
    let _: KeyPath<ServerDelivery, ServerDelivery.Credentials> = \.credentials
    let _: CreditHistory = try await (value() as ServerDelivery).creditHistory(currency: value() as String?)
    let _: DeliveryReceipt = try await (value() as ServerDelivery).deliver(value() as StoreTransaction, ticket: value() as PurchaseTicket?)
    let _: ServerDelivery = await ServerDelivery(
        baseURL: value() as URL, credentials: value() as ServerDelivery.Credentials, transport: value() as any HTTPTransport,
        responseCheck: value() as ServerDelivery.ResponseCheck)
    let _: LedgerPage = try await (value() as ServerDelivery).ledger(
        currency: value() as String?, kind: value() as String?, limit: value() as Int, cursor: value() as String?)
    let _: AccountSnapshot? = try await (value() as ServerDelivery).localAccount()
    let _: Order = try await (value() as ServerDelivery).order(value() as String)
    let _: PurchaseTicket = try await (value() as ServerDelivery).prepare(productID: value() as String)
    let _: ServerDelivery.Credentials = try await ServerDelivery.register(baseURL: value() as URL, transport: value() as any HTTPTransport)
    let _: Reservation = try await (value() as ServerDelivery).release(reservationID: value() as String)
    let _: Reservation = try await (value() as ServerDelivery).reserve(value() as ReservationOrder)
    let _: KeyPath<ServerDelivery, ServerDelivery.ResponseCheck> = \.responseCheck
    let _: SpendResponse = try await (value() as ServerDelivery).spend(value() as SpendOrder)
}

@MainActor func checkSpendOrder() async throws {
    _ = SpendOrder.self
}

@MainActor func checkStore<Instance: Store>(_ instance: Instance) async throws {
    _ = (any Store).self
    let _: TransactionEvidence = try await instance.appTransaction()
    let _: TransactionEvidence = try await instance.appTransaction()
    let _: [StoreTransaction] = try await instance.currentEntitlements()
    try await instance.finish(value() as StoreTransaction)
    let _: [ProductDetails] = try await instance.products(for: value() as [String])
    let _: StorePurchaseResult = try await instance.purchase(value() as String, options: value() as StorePurchaseOptions)
    let _: AsyncStream<StorePurchaseIntent> = await instance.purchaseIntents()
    let _: [String] = try await instance.subscriptionRenewals()
    try await instance.sync()
    let _: [StoreTransaction] = try await instance.transactionHistory()
    let _: AsyncStream<StoreTransaction> = await instance.transactionUpdates()
    let _: [StoreTransaction] = try await instance.unfinishedTransactions()
}

@MainActor func checkStoreKit1Store() async throws {
    _ = StoreKit1Store.self
    let _: TransactionEvidence = try await (value() as StoreKit1Store).appTransaction()
    let _: [StoreTransaction] = try await (value() as StoreKit1Store).currentEntitlements()
    try await (value() as StoreKit1Store).finish(value() as StoreTransaction)
    let _: StoreKit1Store = await StoreKit1Store(
        productKinds: value() as [String: ProductKind], productRequestTimeout: value() as TimeInterval, productRequestAttempts: value() as Int,
        now: value() as @Sendable () -> Date, queue: value() as SKPaymentQueue)
    await (value() as StoreKit1Store).paymentQueue(value() as SKPaymentQueue, restoreCompletedTransactionsFailedWithError: value() as any Error)
    let _: Bool = await (value() as StoreKit1Store).paymentQueue(
        value() as SKPaymentQueue, shouldAddStorePayment: value() as SKPayment, for: value() as SKProduct)
    await (value() as StoreKit1Store).paymentQueue(value() as SKPaymentQueue, updatedTransactions: value() as [SKPaymentTransaction])
    await (value() as StoreKit1Store).paymentQueueRestoreCompletedTransactionsFinished(value() as SKPaymentQueue)
    let _: KeyPath<StoreKit1Store, Int> = \.productRequestAttempts
    let _: KeyPath<StoreKit1Store, TimeInterval> = \.productRequestTimeout
    let _: [ProductDetails] = try await (value() as StoreKit1Store).products(for: value() as [String])
    let _: StorePurchaseResult = try await (value() as StoreKit1Store).purchase(value() as String, options: value() as StorePurchaseOptions)
    let _: AsyncStream<StorePurchaseIntent> = await (value() as StoreKit1Store).purchaseIntents()
    let _: [String] = try await (value() as StoreKit1Store).subscriptionRenewals()
    try await (value() as StoreKit1Store).sync()
    let _: [StoreTransaction] = try await (value() as StoreKit1Store).transactionHistory()
    let _: AsyncStream<StoreTransaction> = await (value() as StoreKit1Store).transactionUpdates()
    let _: [StoreTransaction] = try await (value() as StoreKit1Store).unfinishedTransactions()
}

@MainActor func checkStoreKit2Store() async throws {
    _ = StoreKit2Store.self
    let _: TransactionEvidence = try await (value() as StoreKit2Store).appTransaction()
    let _: [StoreTransaction] = try await (value() as StoreKit2Store).currentEntitlements()
    try await (value() as StoreKit2Store).finish(value() as StoreTransaction)
    let _: StoreKit2Store = await StoreKit2Store()
    let _: [ProductDetails] = try await (value() as StoreKit2Store).products(for: value() as [String])
    let _: StorePurchaseResult = try await (value() as StoreKit2Store).purchase(value() as String, options: value() as StorePurchaseOptions)
    let _: AsyncStream<StorePurchaseIntent> = await (value() as StoreKit2Store).purchaseIntents()
    let _: [String] = try await (value() as StoreKit2Store).subscriptionRenewals()
    try await (value() as StoreKit2Store).sync()
    let _: [StoreTransaction] = try await (value() as StoreKit2Store).transactionHistory()
    let _: AsyncStream<StoreTransaction> = await (value() as StoreKit2Store).transactionUpdates()
    let _: [StoreTransaction] = try await (value() as StoreKit2Store).unfinishedTransactions()
}

@MainActor func checkStorePurchaseIntent() async throws {
    _ = StorePurchaseIntent.self
    let _: StorePurchaseIntent = await StorePurchaseIntent(productID: value() as String, winBackOfferID: value() as String?)
    let _: KeyPath<StorePurchaseIntent, String> = \.productID
    let _: KeyPath<StorePurchaseIntent, String?> = \.winBackOfferID
}

#if canImport(UIKit)
import UIKit

@MainActor func checkPurchaseScene() async throws {
    _ = PurchaseScene.self
    let _: (PurchaseScene, PurchaseScene) -> Bool = (==)
    var purchaseSceneHasher = Hasher()
    await (value() as PurchaseScene).hash(into: &purchaseSceneHasher)
    let _: PurchaseScene = await PurchaseScene(value() as UIScene)
    let _: KeyPath<PurchaseScene, UIScene?> = \.scene
    let _: PurchaseScene? = PurchaseScene.inFront
    let _: KeyPath<StorePurchaseOptions, PurchaseScene?> = \.scene
}
#endif

@MainActor func checkStorePurchaseOptions() async throws {
    _ = StorePurchaseOptions.self
    let _: KeyPath<StorePurchaseOptions, UUID?> = \.appAccountToken
    let _: StorePurchaseOptions = await StorePurchaseOptions(
        appAccountToken: value() as UUID?, quantity: value() as Int, promotionalOffer: value() as PromotionalOffer?, winBackOfferID: value() as String?)
    let _: KeyPath<StorePurchaseOptions, PromotionalOffer?> = \.promotionalOffer
    let _: KeyPath<StorePurchaseOptions, Int> = \.quantity
    let _: KeyPath<StorePurchaseOptions, String?> = \.winBackOfferID
}

@MainActor func checkStorePurchaseResult() async throws {
    _ = StorePurchaseResult.self
    let _: StorePurchaseResult = .pending
    let _: StorePurchaseResult = .success(value() as StoreTransaction)
    let _: StorePurchaseResult = .userCancelled
}

@MainActor func checkStoreTransaction() async throws {
    _ = StoreTransaction.self
    let _: (StoreTransaction, StoreTransaction) -> Bool = (==)
    let _: [StoreTransaction] = try await StoreTransaction.all(inReceipt: value() as String)
    let _: KeyPath<StoreTransaction, UUID?> = \.appAccountToken
    let _: [StoreTransaction] = try await StoreTransaction.entitlements(inReceipt: value() as String, at: value() as Date)
    let _: KeyPath<StoreTransaction, TransactionEvidence> = \.evidence
    var storeTransactionHasher = Hasher()
    await (value() as StoreTransaction).hash(into: &storeTransactionHasher)
    let _: KeyPath<StoreTransaction, String> = \.id
    let _: StoreTransaction = try await StoreTransaction(jws: value() as String)
    let _: StoreTransaction = try await StoreTransaction(receipt: value() as String, transactionID: value() as String)
    let _: KeyPath<StoreTransaction, Bool> = \.isRevoked
    let _: KeyPath<StoreTransaction, String> = \.originalID
    let _: KeyPath<StoreTransaction, TransactionPayload> = \.payload
    let _: KeyPath<StoreTransaction, String> = \.productID
    let _: KeyPath<StoreTransaction, Int> = \.quantity
}

@MainActor func checkSubscriptionProfileModel() async throws {
    _ = SubscriptionProfileModel.self
    _ = SubscriptionProfileModel.Plan.self
    let _: KeyPath<SubscriptionProfileModel.Plan, String?> = \.billingText
    let _: KeyPath<SubscriptionProfileModel.Plan, String?> = \.displayPrice
    let _: KeyPath<SubscriptionProfileModel.Plan, String> = \.productID
    let _: KeyPath<SubscriptionProfileModel.Plan, SubscriptionProfileModel.Status> = \.status
    let _: KeyPath<SubscriptionProfileModel.Plan, String> = \.statusText
    let _: KeyPath<SubscriptionProfileModel.Plan, String> = \.title
    _ = SubscriptionProfileModel.Status.self
    let _: SubscriptionProfileModel.Status = .ends(on: value() as Date)
    let _: SubscriptionProfileModel.Status = .expired(on: value() as Date?)
    let _: SubscriptionProfileModel.Status = .lifetime
    let _: SubscriptionProfileModel.Status = .paymentProblem(accessUntil: value() as Date)
    let _: SubscriptionProfileModel.Status = .renews(on: value() as Date)
    let _: KeyPath<SubscriptionProfileModel, String> = \.badgeTitle
    let _: KeyPath<SubscriptionProfileModel, String> = \.freeTitle
    let _: SubscriptionProfileModel = await SubscriptionProfileModel(
        manager: value() as PurchaseManager, entitlement: value() as String, language: value() as TallyLanguage?)
    let _: KeyPath<SubscriptionProfileModel, Bool> = \.isPro
    let _: KeyPath<SubscriptionProfileModel, TallyLanguage> = \.language
    let _: URL = await SubscriptionProfileModel.manageSubscriptionsURL
    let _: KeyPath<SubscriptionProfileModel, String> = \.manageTitle
    let _: KeyPath<SubscriptionProfileModel, (@MainActor (SubscriptionProfileModel) -> Void)?> = \.onChange
    let _: KeyPath<SubscriptionProfileModel, SubscriptionProfileModel.Plan?> = \.plan
    await (value() as SubscriptionProfileModel).stop()
    await (value() as SubscriptionProfileModel).update(policy: value() as FetchPolicy)
}

@MainActor func checkSubscriptionTerms() async throws {
    _ = SubscriptionTerms.self
    _ = SubscriptionTerms.IntroductoryOffer.self
    _ = SubscriptionTerms.IntroductoryOffer.PaymentMode.self
    let _: SubscriptionTerms.IntroductoryOffer.PaymentMode = .freeTrial
    let _: SubscriptionTerms.IntroductoryOffer.PaymentMode? = await SubscriptionTerms.IntroductoryOffer.PaymentMode(rawValue: value() as String)
    let _: SubscriptionTerms.IntroductoryOffer.PaymentMode = .payAsYouGo
    let _: SubscriptionTerms.IntroductoryOffer.PaymentMode = .payUpFront
    let _: KeyPath<SubscriptionTerms.IntroductoryOffer, String> = \.displayPrice
    let _: SubscriptionTerms.IntroductoryOffer = await SubscriptionTerms.IntroductoryOffer(
        paymentMode: value() as SubscriptionTerms.IntroductoryOffer.PaymentMode, period: value() as SubscriptionTerms.Period, periodCount: value() as Int,
        displayPrice: value() as String)
    let _: KeyPath<SubscriptionTerms.IntroductoryOffer, SubscriptionTerms.IntroductoryOffer.PaymentMode> = \.paymentMode
    let _: KeyPath<SubscriptionTerms.IntroductoryOffer, SubscriptionTerms.Period> = \.period
    let _: KeyPath<SubscriptionTerms.IntroductoryOffer, Int> = \.periodCount
    _ = SubscriptionTerms.Period.self
    _ = SubscriptionTerms.Period.Unit.self
    let _: SubscriptionTerms.Period.Unit = .day
    let _: SubscriptionTerms.Period.Unit? = await SubscriptionTerms.Period.Unit(rawValue: value() as String)
    let _: SubscriptionTerms.Period.Unit = .month
    let _: SubscriptionTerms.Period.Unit = .week
    let _: SubscriptionTerms.Period.Unit = .year
    let _: SubscriptionTerms.Period = await SubscriptionTerms.Period(value: value() as Int, unit: value() as SubscriptionTerms.Period.Unit)
    let _: KeyPath<SubscriptionTerms.Period, SubscriptionTerms.Period.Unit> = \.unit
    let _: KeyPath<SubscriptionTerms.Period, Int> = \.value
    let _: KeyPath<SubscriptionTerms, String> = \.groupID
    let _: SubscriptionTerms = await SubscriptionTerms(
        period: value() as SubscriptionTerms.Period, groupID: value() as String, introductoryOffer: value() as SubscriptionTerms.IntroductoryOffer?,
        isEligibleForIntroductoryOffer: value() as Bool)
    let _: KeyPath<SubscriptionTerms, SubscriptionTerms.IntroductoryOffer?> = \.introductoryOffer
    let _: KeyPath<SubscriptionTerms, Bool> = \.isEligibleForIntroductoryOffer
    let _: KeyPath<SubscriptionTerms, SubscriptionTerms.Period> = \.period
}

@MainActor func checkSystemLogSink() async throws {
    _ = SystemLogSink.self
    let _: String = await SystemLogSink.category
    let _: SystemLogSink = await SystemLogSink()
    await (value() as SystemLogSink).log(value() as LogMessage)
    let _: String = await SystemLogSink.subsystem
}

@MainActor func checkTallyError() async throws {
    _ = TallyError.self
    let _: (TallyError, TallyError) -> Bool = (==)
    _ = TallyError.Code.self
    let _: TallyError.Code = await TallyError.Code.configurationInvalid
    let _: KeyPath<TallyError.Code, String> = \.description
    let _: TallyError.Code = await TallyError.Code(rawValue: value() as String)
    let _: TallyError.Code = await TallyError.Code.insufficientCredits
    let _: TallyError.Code = await TallyError.Code.invalidRequest
    let _: TallyError.Code = await TallyError.Code.networkError
    let _: TallyError.Code = await TallyError.Code.networkUnavailable
    let _: TallyError.Code = await TallyError.Code.notStarted
    let _: TallyError.Code = await TallyError.Code.offerNotEligible
    let _: TallyError.Code = await TallyError.Code.orderFailed
    let _: TallyError.Code = await TallyError.Code.paymentDeclined
    let _: TallyError.Code = await TallyError.Code.paymentNotAllowed
    let _: TallyError.Code = await TallyError.Code.productNotFound
    let _: TallyError.Code = await TallyError.Code.purchaseInProgress
    let _: TallyError.Code = await TallyError.Code.rateLimited
    let _: KeyPath<TallyError.Code, String> = \.rawValue
    let _: TallyError.Code = await TallyError.Code.reservationClosed
    let _: TallyError.Code = await TallyError.Code.responseNotTrusted
    let _: TallyError.Code = await TallyError.Code.restoreFailed
    let _: TallyError.Code = await TallyError.Code.serverUnavailable
    let _: TallyError.Code = await TallyError.Code.storageFailed
    let _: TallyError.Code = await TallyError.Code.storeUnavailable
    let _: TallyError.Code = await TallyError.Code.transactionBelongsToAnotherUser
    let _: TallyError.Code = await TallyError.Code.unauthorized
    let _: TallyError.Code = await TallyError.Code.unusedCreditExists
    let _: TallyError.Code = await TallyError.Code.verificationFailed
    let _: TallyError.Code = await TallyError.Code.verificationUnavailable
    let _: KeyPath<TallyError, Int64?> = \.available
    let _: KeyPath<TallyError, TallyError.Code> = \.code
    let _: KeyPath<TallyError, String?> = \.currency
    let _: KeyPath<TallyError, String> = \.description
    let _: KeyPath<TallyError, String?> = \.detail
    let _: KeyPath<TallyError, String?> = \.errorDescription
    let _: KeyPath<TallyError, String?> = \.failureReason
    var tallyErrorHasher = Hasher()
    await (value() as TallyError).hash(into: &tallyErrorHasher)
    let _: TallyError = await TallyError(
        value() as TallyError.Code, value() as String, currency: value() as String?, available: value() as Int64?, requestID: value() as String?,
        retryAfter: value() as TimeInterval?, detail: value() as String?)
    let _: KeyPath<TallyError, Bool> = \.isTransient
    let _: ErrorPresentation = await (value() as TallyError).presentation(in: value() as TallyLanguage)
    let _: KeyPath<TallyError, String> = \.reason
    let _: KeyPath<TallyError, String?> = \.recoverySuggestion
    let _: KeyPath<TallyError, String?> = \.requestID
    let _: KeyPath<TallyError, TimeInterval?> = \.retryAfter
}

@MainActor func checkTallyLanguage() async throws {
    _ = TallyLanguage.self
    let _: [TallyLanguage] = await TallyLanguage.all
    let _: KeyPath<TallyLanguage, String> = \.code
    let _: KeyPath<TallyLanguage, String> = \.description
    let _: TallyLanguage = await TallyLanguage.english
    let _: TallyLanguage = await TallyLanguage(identifier: value() as String)
    let _: TallyLanguage = await TallyLanguage.preferred
    let _: TallyLanguage = await TallyLanguage.ukrainian
}

@MainActor func checkTallyLog() async throws {
    _ = TallyLog.self
    let _: KeyPath<TallyLog, @Sendable (LogMessage) -> Void> = \.alarm
    let _: @Sendable (LogMessage) -> Void = await TallyLog.assertInDebug
    let _: TallyLog = await TallyLog(output: value() as (any TallyLogSink)?, alarm: value() as @Sendable (LogMessage) -> Void)
    await (value() as TallyLog).log(value() as LogMessage)
    let _: KeyPath<TallyLog, (any TallyLogSink)?> = \.output
    let _: @Sendable (LogMessage) -> Void = await TallyLog.silent
    let _: any TallyLogSink = await TallyLog.sink
}

@MainActor func checkTallyLogLevel() async throws {
    _ = TallyLogLevel.self
    let _: (TallyLogLevel, TallyLogLevel) -> Bool = (<)
    let _: TallyLogLevel = .debug
    let _: TallyLogLevel = .error
    let _: TallyLogLevel = .fault
    let _: TallyLogLevel = .info
    let _: TallyLogLevel? = await TallyLogLevel(rawValue: value() as Int)
    let _: TallyLogLevel = .notice
}

@MainActor func checkTallyLogSink<Instance: TallyLogSink>(_ instance: Instance) async throws {
    _ = (any TallyLogSink).self
    await instance.log(value() as LogMessage)
}

@MainActor func checkURLSessionTransport() async throws {
    _ = URLSessionTransport.self
    let _: URLSessionTransport = await URLSessionTransport(session: value() as URLSession?)
    let _: (status: Int, headers: [String: String], body: Data) = try await (value() as URLSessionTransport).send(value() as URLRequest)
}
