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
    let _: AccountState? = await (value() as AccessModel).account
    let _: PurchaseManager.AccessDestination? = await (value() as AccessModel).destination
    let _: AccessModel = await AccessModel(manager: value() as PurchaseManager, entitlement: value() as String)
    let _: (@MainActor (AccessModel) -> Void)? = await (value() as AccessModel).onChange
    await (value() as AccessModel).stop()
    await (value() as AccessModel).update(policy: value() as FetchPolicy)
}

@MainActor func checkAccountSnapshot() async throws {
    _ = AccountSnapshot.self
    let _: Balance = await (value() as AccountSnapshot).balance(value() as String)
    let _: [Balance] = await (value() as AccountSnapshot).balances
    let _: [Entitlement] = await (value() as AccountSnapshot).entitlements
    let _: AccountSnapshot = await AccountSnapshot(balances: value() as [Balance], entitlements: value() as [Entitlement])
    let _: AccountSnapshot = try await AccountSnapshot(from: value() as any Decoder)
    let _: Bool = await (value() as AccountSnapshot).isActive(value() as String)
    let _: ResponseTrust? = await (value() as AccountSnapshot).trust
}

@MainActor func checkAccountState() async throws {
    _ = AccountState.self
    _ = AccountState.Source.self
    let _: AccountState.Source = .cache
    let _: AccountState.Source = .fetched
    let _: AccountState.Source? = await AccountState.Source(rawValue: value() as String)
    let _: AccountState.Source = .none
    let _: Date = await (value() as AccountState).asOf
    let _: Balance = await (value() as AccountState).balance(value() as String)
    let _: Date? = await (value() as AccountState).fetchedAt
    let _: Bool = await (value() as AccountState).isActive(value() as String)
    let _: Bool = await (value() as AccountState).isStale
    let _: AccountSnapshot = await (value() as AccountState).snapshot
    let _: AccountState.Source = await (value() as AccountState).source
}

@MainActor func checkAnalyticsSink<Instance: AnalyticsSink>(_ instance: Instance) async throws {
    _ = (any AnalyticsSink).self
    await instance.record(value() as PurchaseEvent)
}

@MainActor func checkAnalyticsStream() async throws {
    _ = AnalyticsStream.self
    let _: AsyncStream<PurchaseEvent> = await (value() as AnalyticsStream).events
    let _: AnalyticsStream = await AnalyticsStream()
    await (value() as AnalyticsStream).record(value() as PurchaseEvent)
}

@MainActor func checkAppPurchase() async throws {
    _ = AppPurchase.self
    let _: String? = await (value() as AppPurchase).appTransactionID
    let _: String? = await (value() as AppPurchase).applicationVersion
    let _: AppStoreEnvironment? = await (value() as AppPurchase).environment
    let _: Bool = await (value() as AppPurchase).firstVersion(isBefore: value() as String)
    let _: AppPurchase = await AppPurchase(value() as AppTransactionPayload)
    let _: AppPurchase = await AppPurchase(value() as AppReceipt)
    let _: String? = await (value() as AppPurchase).originalApplicationVersion
    let _: Date? = await (value() as AppPurchase).originalPurchaseDate
    let _: Date? = await (value() as AppPurchase).preorderDate
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
    let _: Date = await (value() as CreditHistory.Acquisition).acquiredAt
    let _: Int64 = await (value() as CreditHistory.Acquisition).amount
    let _: String = await (value() as CreditHistory.Acquisition).currency
    let _: CreditHistory.Acquisition = await CreditHistory.Acquisition(
        transactionID: value() as String?, currency: value() as String, amount: value() as Int64, acquiredAt: value() as Date, remaining: value() as Int64?)
    let _: Int64? = await (value() as CreditHistory.Acquisition).remaining
    let _: String? = await (value() as CreditHistory.Acquisition).transactionID
    _ = CreditHistory.Consumption.self
    let _: Int64 = await (value() as CreditHistory.Consumption).amount
    let _: String = await (value() as CreditHistory.Consumption).currency
    let _: Date = await (value() as CreditHistory.Consumption).date
    let _: String = await (value() as CreditHistory.Consumption).id
    let _: CreditHistory.Consumption = await CreditHistory.Consumption(
        id: value() as String, currency: value() as String, amount: value() as Int64, reference: value() as String?, date: value() as Date,
        sources: value() as [CreditHistory.Source])
    let _: String? = await (value() as CreditHistory.Consumption).reference
    let _: [CreditHistory.Source] = await (value() as CreditHistory.Consumption).sources
    _ = CreditHistory.Source.self
    let _: Date = await (value() as CreditHistory.Source).acquiredAt
    let _: Int64 = await (value() as CreditHistory.Source).amount
    let _: CreditHistory.Source = await CreditHistory.Source(transactionID: value() as String?, acquiredAt: value() as Date, amount: value() as Int64)
    let _: String? = await (value() as CreditHistory.Source).transactionID
    let _: [CreditHistory.Acquisition] = await (value() as CreditHistory).acquisitions
    let _: [CreditHistory.Consumption] = await (value() as CreditHistory).consumptions
    let _: CreditHistory = await CreditHistory(acquisitions: value() as [CreditHistory.Acquisition], consumptions: value() as [CreditHistory.Consumption])
}

@MainActor func checkCreditsBalanceModel() async throws {
    _ = CreditsBalanceModel.self
    let _: Int64 = await (value() as CreditsBalanceModel).balance
    let _: String = await (value() as CreditsBalanceModel).currency
    let _: Int64 = await (value() as CreditsBalanceModel).displayed
    let _: String = await (value() as CreditsBalanceModel).displayedText(in: value() as TallyLanguage)
    let _: TimeInterval = await (value() as CreditsBalanceModel).duration
    let _: CreditsBalanceModel = try await CreditsBalanceModel(
        manager: value() as PurchaseManager, currency: value() as String, duration: value() as TimeInterval, steps: value() as Int,
        sleep: value() as @Sendable (TimeInterval) async throws -> Void)
    let _: Bool = await (value() as CreditsBalanceModel).isAnimating
    let _: (@MainActor (CreditsBalanceModel) -> Void)? = await (value() as CreditsBalanceModel).onChange
    let _: Int = await (value() as CreditsBalanceModel).steps
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
    let _: ErrorPresentation.Action = await (value() as ErrorPresentation).action
    let _: String = await (value() as ErrorPresentation).actionTitle
    let _: String = await (value() as ErrorPresentation).message
    let _: String = await (value() as ErrorPresentation).title
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
    let _: String = await (value() as InsufficientCreditsAlert).buyTitle
    let _: String = await (value() as InsufficientCreditsAlert).cancelTitle
    let _: String? = await (value() as InsufficientCreditsAlert).currency
    let _: InsufficientCreditsAlert? = await InsufficientCreditsAlert(value() as TallyError, language: value() as TallyLanguage)
    let _: String = await (value() as InsufficientCreditsAlert).message
    let _: String = await (value() as InsufficientCreditsAlert).title
}

@MainActor func checkLocalDatabase() async throws {
    _ = LocalDatabase.self
    let _: LocalDatabase = try await LocalDatabase(path: value() as String)
    let _: String = await (value() as LocalDatabase).path
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
    let _: String? = await (value() as LogMessage).code
    let _: LogMessage = .deliveryFailed(transactionID: value() as String, code: value() as String, reason: value() as String)
    let _: LogMessage = .deliveryRefused(transactionID: value() as String, productID: value() as String, code: value() as String, reason: value() as String)
    let _: LogMessage = .finished(transactionID: value() as String, productID: value() as String)
    let _: TallyLogLevel = await (value() as LogMessage).level
    let _: LogMessage = .operationFailed(value() as LogMessage.Operation, code: value() as String, reason: value() as String)
    let _: LogMessage = .refundTakenBack(transactionID: value() as String, productID: value() as String)
    let _: LogMessage = .rejectedBackedOff(transactionID: value() as String, nextTry: value() as Date)
    let _: LogMessage = .restoreFailed(code: value() as String, reason: value() as String)
    let _: LogMessage = .restored(delivered: value() as Int, failed: value() as Int)
    let _: LogMessage = .retryScheduled(transactionID: value() as String, seconds: value() as TimeInterval, failures: value() as Int)
    let _: String = await (value() as LogMessage).text
    let _: String? = await (value() as LogMessage).transactionID
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
    let _: Int? = await (value() as OnDeviceCatalog.Product).durationDays
    let _: [String] = await (value() as OnDeviceCatalog.Product).entitlements
    let _: [Amount] = await (value() as OnDeviceCatalog.Product).grants
    let _: String = await (value() as OnDeviceCatalog.Product).id
    let _: OnDeviceCatalog.Product = await OnDeviceCatalog.Product(
        id: value() as String, kind: value() as ProductKind, grants: value() as [Amount], entitlements: value() as [String],
        paywall: value() as [TallyLanguage: PaywallText], durationDays: value() as Int?)
    let _: ProductKind = await (value() as OnDeviceCatalog.Product).kind
    let _: [TallyLanguage: PaywallText] = await (value() as OnDeviceCatalog.Product).paywall
    let _: OnDeviceCatalog = await OnDeviceCatalog(value() as TallyCatalog)
    let _: OnDeviceCatalog = await OnDeviceCatalog(products: value() as [OnDeviceCatalog.Product])
    let _: [String: ProductKind] = await (value() as OnDeviceCatalog).kinds
    let _: OnDeviceCatalog = try await OnDeviceCatalog.load(contentsOf: value() as URL)
    let _: String? = await (value() as OnDeviceCatalog).problem
    let _: OnDeviceCatalog.Product? = await (value() as OnDeviceCatalog).product(value() as String)
    let _: [OnDeviceCatalog.Product] = await (value() as OnDeviceCatalog).products
}

@MainActor func checkOnDeviceLedger() async throws {
    _ = OnDeviceLedger.self
    try await (value() as OnDeviceLedger).abandon(value() as PurchaseTicket, reason: value() as String)
    let _: AccountSnapshot = try await (value() as OnDeviceLedger).account(storeEntitlements: value() as [StoreTransaction], renewals: value() as [String])
    let _: AppPurchase = try await (value() as OnDeviceLedger).appPurchase(value() as TransactionEvidence)
    let _: Bool = try await (value() as OnDeviceLedger).balancesMatchEntries()
    let _: OnDeviceCatalog = await (value() as OnDeviceLedger).catalog
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
    let _: String? = await (value() as PaywallModel.Item).aiExplanation
    let _: [String] = await (value() as PaywallModel.Item).benefits
    let _: String? = await (value() as PaywallModel.Item).billingText
    let _: PaywallModel.ButtonState = await (value() as PaywallModel.Item).button
    let _: String = await (value() as PaywallModel.Item).buttonTitle
    let _: String = await (value() as PaywallModel.Item).description
    let _: String? = await (value() as PaywallModel.Item).disabledReason
    let _: String? = await (value() as PaywallModel.Item).displayPrice
    let _: String = await (value() as PaywallModel.Item).id
    let _: String? = await (value() as PaywallModel.Item).introductoryOffer
    let _: String = await (value() as PaywallModel.Item).title
    _ = PaywallModel.RestoreOutcome.self
    let _: PaywallModel.RestoreOutcome? = await PaywallModel.RestoreOutcome(rawValue: value() as String)
    let _: PaywallModel.RestoreOutcome = .nothingToRestore
    let _: PaywallModel.RestoreOutcome = .restored
    await (value() as PaywallModel).dismissError()
    let _: ErrorPresentation? = await (value() as PaywallModel).error
    let _: TallyError.Code? = await (value() as PaywallModel).errorCode
    let _: PaywallModel = await PaywallModel(manager: value() as PurchaseManager, productIDs: value() as [String]?, language: value() as TallyLanguage?)
    let _: Bool = await (value() as PaywallModel).isPending
    let _: Bool = await (value() as PaywallModel).isProcessing
    let _: [PaywallModel.Item] = await (value() as PaywallModel).items
    let _: TallyLanguage = await (value() as PaywallModel).language
    let _: DeliveryReceipt? = await (value() as PaywallModel).lastPurchase
    await (value() as PaywallModel).load()
    let _: String = await (value() as PaywallModel).manageTitle
    let _: (@MainActor (PaywallModel) -> Void)? = await (value() as PaywallModel).onChange
    let _: String = await (value() as PaywallModel).pendingMessage
    let _: String = await (value() as PaywallModel).privacyTitle
    let _: String = await (value() as PaywallModel).processingMessage
    let _: PurchaseManager.PurchaseOutcome? = await (value() as PaywallModel).purchase(value() as String)
    await (value() as PaywallModel).restore()
    let _: String? = await (value() as PaywallModel).restoreMessage
    let _: PaywallModel.RestoreOutcome? = await (value() as PaywallModel).restoreOutcome
    let _: String = await (value() as PaywallModel).restoreTitle
    let _: Bool = await (value() as PaywallModel).sellsSubscriptions
    let _: String = await (value() as PaywallModel).termsTitle
    await (value() as PaywallModel).tryAgain()
}

@MainActor func checkProductDetails() async throws {
    _ = ProductDetails.self
    let _: String = await (value() as ProductDetails).currencyCode
    let _: String = await (value() as ProductDetails).description
    let _: String = await (value() as ProductDetails).displayName
    let _: String = await (value() as ProductDetails).displayPrice
    let _: String = await (value() as ProductDetails).id
    let _: ProductDetails = await ProductDetails(
        id: value() as String, kind: value() as ProductKind, displayName: value() as String, description: value() as String, displayPrice: value() as String,
        price: value() as Int64, currencyCode: value() as String, subscription: value() as SubscriptionTerms?)
    let _: ProductKind = await (value() as ProductDetails).kind
    let _: Int64 = await (value() as ProductDetails).price
    let _: SubscriptionTerms? = await (value() as ProductDetails).subscription
}

@MainActor func checkProductGrant() async throws {
    _ = ProductGrant.self
    let _: Amount? = await (value() as ProductGrant).allowance
    let _: Int? = await (value() as ProductGrant).durationDays
    let _: [String] = await (value() as ProductGrant).entitlements
    let _: [Amount] = await (value() as ProductGrant).grants
    let _: String = await (value() as ProductGrant).id
    let _: ProductGrant = try await ProductGrant(from: value() as any Decoder)
    let _: ProductGrant = await ProductGrant(
        id: value() as String, kind: value() as ProductKind, grants: value() as [Amount], entitlements: value() as [String], allowance: value() as Amount?,
        paywall: value() as PaywallText, durationDays: value() as Int?)
    let _: ProductKind = await (value() as ProductGrant).kind
    let _: PaywallText = await (value() as ProductGrant).paywall
}

@MainActor func checkPromotionalOffer() async throws {
    _ = PromotionalOffer.self
    let _: PromotionalOffer = await PromotionalOffer(
        offerID: value() as String, keyID: value() as String, nonce: value() as UUID, signature: value() as Data, timestamp: value() as Int)
    let _: String = await (value() as PromotionalOffer).keyID
    let _: UUID = await (value() as PromotionalOffer).nonce
    let _: String = await (value() as PromotionalOffer).offerID
    let _: Data = await (value() as PromotionalOffer).signature
    let _: Int = await (value() as PromotionalOffer).timestamp
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
    let _: String? = await (value() as PurchaseEvent).currency
    let _: Date = await (value() as PurchaseEvent).date
    let _: String? = await (value() as PurchaseEvent).errorCode
    let _: [Amount] = await (value() as PurchaseEvent).granted
    let _: PurchaseEvent.Kind = await (value() as PurchaseEvent).kind
    let _: Int64? = await (value() as PurchaseEvent).price
    let _: String = await (value() as PurchaseEvent).productID
    let _: String? = await (value() as PurchaseEvent).transactionID
}

@MainActor func checkPurchaseJournal() async throws {
    _ = PurchaseJournal.self
    _ = PurchaseJournal.Entry.self
    let _: Int = await (value() as PurchaseJournal.Entry).attempts
    let _: String = await (value() as PurchaseJournal.Entry).eventID
    let _: String? = await (value() as PurchaseJournal.Entry).lastError
    let _: String? = await (value() as PurchaseJournal.Entry).orderID
    let _: DeliveryReceipt? = await (value() as PurchaseJournal.Entry).receipt
    let _: PurchaseJournal.State = await (value() as PurchaseJournal.Entry).state
    let _: StoreTransaction = await (value() as PurchaseJournal.Entry).transaction
    let _: Date = await (value() as PurchaseJournal.Entry).updatedAt
    _ = PurchaseJournal.Intent.self
    let _: Date = await (value() as PurchaseJournal.Intent).createdAt
    let _: String = await (value() as PurchaseJournal.Intent).id
    let _: String = await (value() as PurchaseJournal.Intent).state
    let _: PurchaseTicket = await (value() as PurchaseJournal.Intent).ticket
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
    let _: TimeInterval = await (value() as PurchaseManager.Configuration).abandonUnpaidAfter
    let _: Int = await (value() as PurchaseManager.Configuration).attemptsDuringPurchase
    let _: Bool = await (value() as PurchaseManager.Configuration).blocksPurchaseWhileCreditUnused
    let _: TimeInterval = await (value() as PurchaseManager.Configuration).cacheLifetime
    let _: (@Sendable (PurchaseStep, String) async -> Void)? = await (value() as PurchaseManager.Configuration).checkpoint
    let _: Bool = await (value() as PurchaseManager.Configuration).completesPurchaseIntents
    let _: Int64 = await (value() as PurchaseManager.Configuration).consumeHoldSeconds
    let _: PurchaseManager.Configuration = await PurchaseManager.Configuration(productIDs: value() as [String])
    let _: TallyLanguage = await (value() as PurchaseManager.Configuration).language
    let _: TallyLog = await (value() as PurchaseManager.Configuration).log
    let _: TimeInterval? = await (value() as PurchaseManager.Configuration).offlineAccessWindow
    let _: TimeInterval = await (value() as PurchaseManager.Configuration).offlineBalanceWindow
    let _: String? = await (value() as PurchaseManager.Configuration).onboardingEntitlement
    let _: [String] = await (value() as PurchaseManager.Configuration).productIDs
    let _: TimeInterval? = await (value() as PurchaseManager.Configuration).refreshInterval
    let _: TimeInterval = await (value() as PurchaseManager.Configuration).rejectedRetryInterval
    let _: RetryPolicy = await (value() as PurchaseManager.Configuration).retry
    let _: String = await (value() as PurchaseManager.Configuration).scope
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
    let _: AccountState = await (value() as PurchaseManager.RestoreResult).account
    let _: [DeliveryReceipt] = await (value() as PurchaseManager.RestoreResult).receipts
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
    let _: UUID? = await (value() as PurchaseTicket).appAccountToken
    let _: PurchaseTicket = try await PurchaseTicket(from: value() as any Decoder)
    let _: PurchaseTicket = await PurchaseTicket(productID: value() as String, orderID: value() as String?, appAccountToken: value() as UUID?)
    let _: String? = await (value() as PurchaseTicket).orderID
    let _: String = await (value() as PurchaseTicket).productID
}

@MainActor func checkReservationOrder() async throws {
    _ = ReservationOrder.self
    let _: Int64 = await (value() as ReservationOrder).amount
    let _: String = await (value() as ReservationOrder).currency
    let _: String = await (value() as ReservationOrder).idempotencyKey
    let _: ReservationOrder = await ReservationOrder(
        currency: value() as String, amount: value() as Int64, ttlSeconds: value() as Int64, idempotencyKey: value() as String, reference: value() as String?)
    let _: ReservationOrder = try await ReservationOrder(from: value() as any Decoder)
    let _: String? = await (value() as ReservationOrder).reference
    let _: Int64 = await (value() as ReservationOrder).ttlSeconds
}

@MainActor func checkResponseTrust() async throws {
    _ = ResponseTrust.self
    let _: ResponseVerifier.Failure? = await (value() as ResponseTrust).failure
    let _: ResponseTrust = try await ResponseTrust(from: value() as any Decoder)
    let _: ResponseTrust = await ResponseTrust(verified: value() as Bool, failure: value() as ResponseVerifier.Failure?)
    let _: Bool = await (value() as ResponseTrust).verified
}

@MainActor func checkRetryPolicy() async throws {
    _ = RetryPolicy.self
    let _: TimeInterval = await (value() as RetryPolicy).cap(afterFailures: value() as Int)
    var generator = SystemRandomNumberGenerator()
    let _: TimeInterval = await (value() as RetryPolicy).delay(afterFailures: value() as Int, atLeast: value() as TimeInterval, using: &generator)
    let _: RetryPolicy = await RetryPolicy(initialDelay: value() as TimeInterval, maximumDelay: value() as TimeInterval, jitter: value() as Bool)
    let _: TimeInterval = await (value() as RetryPolicy).initialDelay
    let _: Bool = await (value() as RetryPolicy).jitter
    let _: TimeInterval = await (value() as RetryPolicy).maximumDelay
    let _: RetryPolicy = await RetryPolicy.standard
}

@MainActor func checkServerDelivery() async throws {
    _ = ServerDelivery.self
    _ = ServerDelivery.Credentials.self
    let _: UUID = await (value() as ServerDelivery.Credentials).appAccountToken
    let _: ServerDelivery.Credentials = try await ServerDelivery.Credentials(from: value() as any Decoder)
    let _: ServerDelivery.Credentials = await ServerDelivery.Credentials(
        userID: value() as String, userToken: value() as String, appAccountToken: value() as UUID)
    let _: String = await (value() as ServerDelivery.Credentials).userID
    let _: String = await (value() as ServerDelivery.Credentials).userToken
    _ = ServerDelivery.ResponseCheck.self
    let _: ServerDelivery.ResponseCheck = .enforced(value() as ResponseVerifier)
    let _: ServerDelivery.ResponseCheck = .informational(value() as ResponseVerifier)
    let _: ServerDelivery.ResponseCheck = .off
    try await (value() as ServerDelivery).abandon(value() as PurchaseTicket, reason: value() as String)
    let _: AccountSnapshot = try await (value() as ServerDelivery).account(storeEntitlements: value() as [StoreTransaction], renewals: value() as [String])
    let _: URL = await (value() as ServerDelivery).baseURL
    let _: [ProductGrant] = try await (value() as ServerDelivery).catalog(language: value() as TallyLanguage)
    let _: Reservation = try await (value() as ServerDelivery).commit(reservationID: value() as String, used: value() as Int64)
    let _: ServerDelivery.Credentials = await (value() as ServerDelivery).credentials
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
    let _: ServerDelivery.ResponseCheck = await (value() as ServerDelivery).responseCheck
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
    let _: Int = await (value() as StoreKit1Store).productRequestAttempts
    let _: TimeInterval = await (value() as StoreKit1Store).productRequestTimeout
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
    let _: String = await (value() as StorePurchaseIntent).productID
    let _: String? = await (value() as StorePurchaseIntent).winBackOfferID
}

@MainActor func checkStorePurchaseOptions() async throws {
    _ = StorePurchaseOptions.self
    let _: UUID? = await (value() as StorePurchaseOptions).appAccountToken
    let _: StorePurchaseOptions = await StorePurchaseOptions(
        appAccountToken: value() as UUID?, quantity: value() as Int, promotionalOffer: value() as PromotionalOffer?, winBackOfferID: value() as String?)
    let _: PromotionalOffer? = await (value() as StorePurchaseOptions).promotionalOffer
    let _: Int = await (value() as StorePurchaseOptions).quantity
    let _: String? = await (value() as StorePurchaseOptions).winBackOfferID
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
    let _: UUID? = await (value() as StoreTransaction).appAccountToken
    let _: [StoreTransaction] = try await StoreTransaction.entitlements(inReceipt: value() as String, at: value() as Date)
    let _: TransactionEvidence = await (value() as StoreTransaction).evidence
    var storeTransactionHasher = Hasher()
    await (value() as StoreTransaction).hash(into: &storeTransactionHasher)
    let _: String = await (value() as StoreTransaction).id
    let _: StoreTransaction = try await StoreTransaction(jws: value() as String)
    let _: StoreTransaction = try await StoreTransaction(receipt: value() as String, transactionID: value() as String)
    let _: Bool = await (value() as StoreTransaction).isRevoked
    let _: String = await (value() as StoreTransaction).originalID
    let _: TransactionPayload = await (value() as StoreTransaction).payload
    let _: String = await (value() as StoreTransaction).productID
    let _: Int = await (value() as StoreTransaction).quantity
}

@MainActor func checkSubscriptionProfileModel() async throws {
    _ = SubscriptionProfileModel.self
    _ = SubscriptionProfileModel.Plan.self
    let _: String? = await (value() as SubscriptionProfileModel.Plan).billingText
    let _: String? = await (value() as SubscriptionProfileModel.Plan).displayPrice
    let _: String = await (value() as SubscriptionProfileModel.Plan).productID
    let _: SubscriptionProfileModel.Status = await (value() as SubscriptionProfileModel.Plan).status
    let _: String = await (value() as SubscriptionProfileModel.Plan).statusText
    let _: String = await (value() as SubscriptionProfileModel.Plan).title
    _ = SubscriptionProfileModel.Status.self
    let _: SubscriptionProfileModel.Status = .ends(on: value() as Date)
    let _: SubscriptionProfileModel.Status = .expired(on: value() as Date?)
    let _: SubscriptionProfileModel.Status = .lifetime
    let _: SubscriptionProfileModel.Status = .paymentProblem(accessUntil: value() as Date)
    let _: SubscriptionProfileModel.Status = .renews(on: value() as Date)
    let _: String = await (value() as SubscriptionProfileModel).badgeTitle
    let _: String = await (value() as SubscriptionProfileModel).freeTitle
    let _: SubscriptionProfileModel = await SubscriptionProfileModel(
        manager: value() as PurchaseManager, entitlement: value() as String, language: value() as TallyLanguage?)
    let _: Bool = await (value() as SubscriptionProfileModel).isPro
    let _: TallyLanguage = await (value() as SubscriptionProfileModel).language
    let _: URL = await SubscriptionProfileModel.manageSubscriptionsURL
    let _: String = await (value() as SubscriptionProfileModel).manageTitle
    let _: (@MainActor (SubscriptionProfileModel) -> Void)? = await (value() as SubscriptionProfileModel).onChange
    let _: SubscriptionProfileModel.Plan? = await (value() as SubscriptionProfileModel).plan
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
    let _: String = await (value() as SubscriptionTerms.IntroductoryOffer).displayPrice
    let _: SubscriptionTerms.IntroductoryOffer = await SubscriptionTerms.IntroductoryOffer(
        paymentMode: value() as SubscriptionTerms.IntroductoryOffer.PaymentMode, period: value() as SubscriptionTerms.Period, periodCount: value() as Int,
        displayPrice: value() as String)
    let _: SubscriptionTerms.IntroductoryOffer.PaymentMode = await (value() as SubscriptionTerms.IntroductoryOffer).paymentMode
    let _: SubscriptionTerms.Period = await (value() as SubscriptionTerms.IntroductoryOffer).period
    let _: Int = await (value() as SubscriptionTerms.IntroductoryOffer).periodCount
    _ = SubscriptionTerms.Period.self
    _ = SubscriptionTerms.Period.Unit.self
    let _: SubscriptionTerms.Period.Unit = .day
    let _: SubscriptionTerms.Period.Unit? = await SubscriptionTerms.Period.Unit(rawValue: value() as String)
    let _: SubscriptionTerms.Period.Unit = .month
    let _: SubscriptionTerms.Period.Unit = .week
    let _: SubscriptionTerms.Period.Unit = .year
    let _: SubscriptionTerms.Period = await SubscriptionTerms.Period(value: value() as Int, unit: value() as SubscriptionTerms.Period.Unit)
    let _: SubscriptionTerms.Period.Unit = await (value() as SubscriptionTerms.Period).unit
    let _: Int = await (value() as SubscriptionTerms.Period).value
    let _: String = await (value() as SubscriptionTerms).groupID
    let _: SubscriptionTerms = await SubscriptionTerms(
        period: value() as SubscriptionTerms.Period, groupID: value() as String, introductoryOffer: value() as SubscriptionTerms.IntroductoryOffer?,
        isEligibleForIntroductoryOffer: value() as Bool)
    let _: SubscriptionTerms.IntroductoryOffer? = await (value() as SubscriptionTerms).introductoryOffer
    let _: Bool = await (value() as SubscriptionTerms).isEligibleForIntroductoryOffer
    let _: SubscriptionTerms.Period = await (value() as SubscriptionTerms).period
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
    let _: String = await (value() as TallyError.Code).description
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
    let _: String = await (value() as TallyError.Code).rawValue
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
    let _: Int64? = await (value() as TallyError).available
    let _: TallyError.Code = await (value() as TallyError).code
    let _: String? = await (value() as TallyError).currency
    let _: String = await (value() as TallyError).description
    let _: String? = await (value() as TallyError).detail
    let _: String? = await (value() as TallyError).errorDescription
    let _: String? = await (value() as TallyError).failureReason
    var tallyErrorHasher = Hasher()
    await (value() as TallyError).hash(into: &tallyErrorHasher)
    let _: TallyError = await TallyError(
        value() as TallyError.Code, value() as String, currency: value() as String?, available: value() as Int64?, requestID: value() as String?,
        retryAfter: value() as TimeInterval?, detail: value() as String?)
    let _: Bool = await (value() as TallyError).isTransient
    let _: ErrorPresentation = await (value() as TallyError).presentation(in: value() as TallyLanguage)
    let _: String = await (value() as TallyError).reason
    let _: String? = await (value() as TallyError).recoverySuggestion
    let _: String? = await (value() as TallyError).requestID
    let _: TimeInterval? = await (value() as TallyError).retryAfter
}

@MainActor func checkTallyLanguage() async throws {
    _ = TallyLanguage.self
    let _: [TallyLanguage] = await TallyLanguage.all
    let _: String = await (value() as TallyLanguage).code
    let _: String = await (value() as TallyLanguage).description
    let _: TallyLanguage = await TallyLanguage.english
    let _: TallyLanguage = await TallyLanguage(identifier: value() as String)
    let _: TallyLanguage = await TallyLanguage.preferred
    let _: TallyLanguage = await TallyLanguage.ukrainian
}

@MainActor func checkTallyLog() async throws {
    _ = TallyLog.self
    let _: @Sendable (LogMessage) -> Void = await (value() as TallyLog).alarm
    let _: @Sendable (LogMessage) -> Void = await TallyLog.assertInDebug
    let _: TallyLog = await TallyLog(output: value() as (any TallyLogSink)?, alarm: value() as @Sendable (LogMessage) -> Void)
    await (value() as TallyLog).log(value() as LogMessage)
    let _: (any TallyLogSink)? = await (value() as TallyLog).output
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
