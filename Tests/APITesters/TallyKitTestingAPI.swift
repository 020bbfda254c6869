// The public API of TallyKitTesting, pinned: every public declaration is referenced once, with its
// type written out, in functions that are never called. scripts/check_api.sh typechecks this
// file and checks that every public symbol of the module is referenced here, so a change of the
// public surface (a symbol added, removed, renamed, or its type changed) fails the test command.
// Drafted by scripts/api_tester.py from the module's symbol graph, then fixed by hand.

import Foundation
import TallyCore
import TallyKit
import TallyKitTesting
import TallyTesting
import TallyVerify

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A value of any type, for arguments of the right type in calls that never run.
private func value<T>(_: T.Type = T.self) -> T { fatalError("never called") }

@MainActor func checkSimulatedDevice() async throws {
    _ = SimulatedDevice.self
    try await (value() as SimulatedDevice).advance(by: value() as Duration)
    let _: KeyPath<SimulatedDevice, AnalyticsStream> = \.analytics
    let _: KeyPath<SimulatedDevice, SimulatedAppStore> = \.appStore
    let _: KeyPath<SimulatedDevice, Date> = \.bootedAt
    let _: KeyPath<SimulatedDevice, OnDeviceCatalog?> = \.catalog
    let _: KeyPath<SimulatedDevice, ManualClock> = \.clock
    let _: KeyPath<SimulatedDevice, TimeInterval> = \.clockOffset
    let _: KeyPath<SimulatedDevice, ManualConnectivity> = \.connectivity
    let _: LocalDatabase = try await (value() as SimulatedDevice).database()
    let _: KeyPath<SimulatedDevice, String> = \.databasePath
    let _: Date = await SimulatedDevice.defaultStart
    let _: KeyPath<SimulatedDevice, UUID> = \.deviceVerificationID
    let _: KeyPath<SimulatedDevice, URL> = \.folder
    let _: KeyPath<SimulatedDevice, DeviceIdentifier> = \.identifier
    let _: SimulatedDevice = await SimulatedDevice(
        appStore: value() as SimulatedAppStore, time: value() as ManualDate, locale: value() as String, storeKit1: value() as Bool,
        catalog: value() as OnDeviceCatalog?)
    let _: SimulatedDevice = try await SimulatedDevice(
        storeKitFile: value() as URL, catalogFile: value() as URL, start: value() as Date, locale: value() as String, storeKit1: value() as Bool)
    let _: PurchaseManager = try await (value() as SimulatedDevice).launch(
        delivery: value() as any Delivery, database: value() as LocalDatabase, configuration: value() as PurchaseManager.Configuration)
    let _: PurchaseManager = try await (value() as SimulatedDevice).launch(
        productIDs: value() as [String]?, configure: value() as (inout PurchaseManager.Configuration) -> Void)
    let _: PurchaseManager = try await (value() as SimulatedDevice).manager(
        delivery: value() as any Delivery, database: value() as LocalDatabase, configuration: value() as PurchaseManager.Configuration)
    let _: KeyPath<SimulatedDevice, Date> = \.now
    let _: OnDeviceLedger = try await (value() as SimulatedDevice).onDeviceLedger(database: value() as LocalDatabase)
    await (value() as SimulatedDevice).reboot()
    await (value() as SimulatedDevice).reinstall()
    let _: KeyPath<SimulatedDevice, SimulatedStoreKit> = \.store
    let _: KeyPath<SimulatedDevice, ManualDate> = \.time
    let _: KeyPath<SimulatedDevice, TimeInterval> = \.uptime
}

@MainActor func checkSimulatedStoreKit() async throws {
    _ = SimulatedStoreKit.self
    _ = SimulatedStoreKit.API.self
    let _: SimulatedStoreKit.API = .storeKit1(device: value() as DeviceIdentifier)
    let _: SimulatedStoreKit.API = .storeKit2
    let _: KeyPath<SimulatedStoreKit, SimulatedStoreKit.API> = \.api
    let _: KeyPath<SimulatedStoreKit, SimulatedAppStore> = \.appStore
    let _: Int = await (value() as SimulatedStoreKit).receiptRefreshes
    let _: TransactionEvidence = try await (value() as SimulatedStoreKit).appTransaction()
    let _: [StoreTransaction] = try await (value() as SimulatedStoreKit).currentEntitlements()
    let _: KeyPath<SimulatedStoreKit, UUID?> = \.deviceVerificationID
    try await (value() as SimulatedStoreKit).finish(value() as StoreTransaction)
    let _: SimulatedStoreKit = await SimulatedStoreKit(
        value() as SimulatedAppStore, locale: value() as String, api: value() as SimulatedStoreKit.API, now: value() as (@Sendable () -> Date)?,
        deviceVerificationID: value() as UUID?)
    let _: KeyPath<SimulatedStoreKit, String> = \.locale
    await (value() as SimulatedStoreKit).nextPurchase(value() as SimulatedAppStore.Outcome)
    let _: [ProductDetails] = try await (value() as SimulatedStoreKit).products(for: value() as [String])
    try await (value() as SimulatedStoreKit).promote(value() as String, winBackOfferID: value() as String?)
    let _: StorePurchaseResult = try await (value() as SimulatedStoreKit).purchase(value() as String, options: value() as StorePurchaseOptions)
    let _: AsyncStream<StorePurchaseIntent> = await (value() as SimulatedStoreKit).purchaseIntents()
    try await (value() as SimulatedStoreKit).redeliver(transactionID: value() as String)
    await (value() as SimulatedStoreKit).setReachable(value() as Bool)
    let _: [String] = try await (value() as SimulatedStoreKit).subscriptionRenewals()
    try await (value() as SimulatedStoreKit).sync()
    let _: [StoreTransaction] = try await (value() as SimulatedStoreKit).transactionHistory()
    let _: AsyncStream<StoreTransaction> = await (value() as SimulatedStoreKit).transactionUpdates()
    let _: [StoreTransaction] = try await (value() as SimulatedStoreKit).unfinishedTransactions()
}
