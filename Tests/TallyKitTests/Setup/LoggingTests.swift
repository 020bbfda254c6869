import Foundation
import TallyCore
import TallyKit
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// Collects what a log receives.
final class LogRecorder: TallyLogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [LogMessage] = []

    func log(_ message: LogMessage) { lock.withLock { received.append(message) } }

    var messages: [LogMessage] { lock.withLock { received } }

    /// Waits (yielding) until a message matches; `nil` when none came after many turns.
    func first(where match: (LogMessage) -> Bool) async -> LogMessage? {
        for _ in 0..<20_000 {
            if let found = messages.first(where: match) { return found }
            await Task.yield()
        }
        return nil
    }
}

/// A destination whose first deliveries fail as an unreachable server's do, then deliver.
struct FlakyDelivery: Delivery {
    let inner: OnDeviceLedger
    let failures: Countdown

    final class Countdown: @unchecked Sendable {
        private let lock = NSLock()
        private var left: Int
        init(_ left: Int) { self.left = left }
        func take() -> Bool {
            lock.withLock {
                guard left > 0 else { return false }
                left -= 1
                return true
            }
        }
    }

    func catalog(language: TallyLanguage) async throws(TallyError) -> [ProductGrant] { try await inner.catalog(language: language) }
    func prepare(productID: String) async throws(TallyError) -> PurchaseTicket { try await inner.prepare(productID: productID) }
    func deliver(_ transaction: StoreTransaction, ticket: PurchaseTicket?) async throws(TallyError) -> DeliveryReceipt {
        if failures.take() { throw TallyError(.networkError, "the connection was lost") }
        return try await inner.deliver(transaction, ticket: ticket)
    }
    func abandon(_ ticket: PurchaseTicket, reason: String) async throws(TallyError) { try await inner.abandon(ticket, reason: reason) }
    func account(storeEntitlements: [StoreTransaction], renewals: [String]) async throws(TallyError) -> AccountSnapshot {
        try await inner.account(storeEntitlements: storeEntitlements, renewals: renewals)
    }
    func localAccount() async throws(TallyError) -> AccountSnapshot? { try await inner.localAccount() }
    func creditHistory(currency: String?) async throws(TallyError) -> CreditHistory { try await inner.creditHistory(currency: currency) }
    func spend(_ order: SpendOrder) async throws(TallyError) -> SpendResponse { try await inner.spend(order) }
    func reserve(_ order: ReservationOrder) async throws(TallyError) -> Reservation { try await inner.reserve(order) }
    func commit(reservationID: String, used: Int64) async throws(TallyError) -> Reservation {
        try await inner.commit(reservationID: reservationID, used: used)
    }
    func release(reservationID: String) async throws(TallyError) -> Reservation { try await inner.release(reservationID: reservationID) }
}

/// What the SDK decides reaches the log, with its code, and a refused verification is loud.
struct LoggingTests {
    /// A ledger whose verifier expects another bundle identifier, as a hand-typed one that is wrong does.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static func wrongBundleLedger(_ device: Device, _ database: LocalDatabase) async throws -> OnDeviceLedger {
        let time = device.time
        let verifier = SignedDataVerifier(
            .init(
                bundleID: .equals("com.tally.exampel"), appAppleID: .equals(Kit.appAppleID), environments: [.sandbox, .production],
                rootCertificates: [Kit.authority.root]),
            now: { time.now })
        return try await OnDeviceLedger(
            database: database, catalog: Kit.onDeviceCatalog, verifier: verifier, storeKit1: false, now: { [device] in device.now })
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aPurchaseRefusedForAWrongBundleIDReachesTheSinkWithItsCodeAndRaisesTheAlarm() async throws {
        let device = try await Device()
        let database = try await device.database()
        let recorder = LogRecorder(), alarms = LogRecorder()
        let manager = try await device.launch(
            delivery: try await Self.wrongBundleLedger(device, database), database: database, productIDs: [Kit.report("career")]
        ) { $0.log = TallyLog(output: recorder, alarm: { alarms.log($0) }) }
        let error = await #expect(throws: TallyError.self) { try await manager.purchase(Kit.report("career")) }
        #expect(error?.code == .verificationFailed)
        #expect(error?.detail == "wrong_bundle_id")
        let transactionID = try #require(try await device.appStore.unfinishedTransactions().first?.transactionID)

        let refused = recorder.messages.filter { if case .verificationRefused = $0 { true } else { false } }
        #expect(refused.count == 1)
        #expect(refused.first?.code == "wrong_bundle_id")
        #expect(refused.first?.level == .fault)
        #expect(refused.first?.transactionID == transactionID)
        #expect(refused.first?.text.contains("bundle id") == true)
        #expect(alarms.messages == refused, "the loud path hears every fault, once")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aRetryAndAFinishAreLogged() async throws {
        let device = try await Device()
        let database = try await device.database()
        let recorder = LogRecorder()
        let delivery = FlakyDelivery(inner: try await device.onDeviceLedger(database), failures: .init(1))
        let manager = try await device.launch(delivery: delivery, database: database, productIDs: [Kit.report("career")]) {
            $0.attemptsDuringPurchase = 1
            $0.log = TallyLog(output: recorder, alarm: TallyLog.silent)
        }
        guard case .deliveryPending(let transactionID) = try await manager.purchase(Kit.report("career")) else {
            Issue.record("the first delivery was meant to fail")
            return
        }
        #expect(recorder.messages.contains(.deliveryFailed(transactionID: transactionID, code: "network_error", reason: "the connection was lost")))
        let retry = recorder.messages.first { if case .retryScheduled(transactionID, _, 1) = $0 { true } else { false } }
        #expect(retry?.level == .info)

        await device.clock.waitForSleepers(1)
        device.clock.advance(by: .seconds(60))
        try await eventually("the retried delivery finished") { try await manager.journal.all().first?.state == .finished }
        let finished = await recorder.first { $0 == .finished(transactionID: transactionID, productID: Kit.report("career")) }
        #expect(finished != nil)
        #expect(try await manager.available("report.career") == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func replacingTheAppWideSinkWorks() async throws {
        let device = try await Device()
        let database = try await device.database()
        let recorder = LogRecorder()
        let previous = TallyLog.sink
        TallyLog.sink = ClosureLogSink { recorder.log($0) }
        defer { TallyLog.sink = previous }
        // The manager's log names no sink of its own: it writes to the app-wide one.
        let manager = try await device.launch(
            delivery: try await Self.wrongBundleLedger(device, database), database: database, productIDs: [Kit.report("career")])
        _ = try? await manager.purchase(Kit.report("career"))
        let transactionID = try #require(try await device.appStore.unfinishedTransactions().first?.transactionID)
        #expect(recorder.messages.contains { $0.transactionID == transactionID && $0.code == "wrong_bundle_id" })
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aRefusedTransactionWaitsADayBeforeAStartDeliversItAgain() async throws {
        let device = try await Device()
        let database = try await device.database()
        let first = try await device.launch(
            delivery: try await Self.wrongBundleLedger(device, database), database: database, productIDs: [Kit.report("career")])
        _ = try? await first.purchase(Kit.report("career"))
        await first.stop()
        #expect(try await first.journal.unfinished().first?.state == .rejected)

        // A fixed build launches an hour later: the refusal is recent, so the start leaves it.
        try await device.advance(seconds: 3600)
        let recorder = LogRecorder()
        let soon = try await device.launch(delivery: try await device.onDeviceLedger(database), database: database, productIDs: [Kit.report("career")]) {
            $0.log = TallyLog(output: recorder, alarm: TallyLog.silent)
        }
        #expect(try await soon.available("report.career") == 0)
        #expect(recorder.messages.contains { if case .rejectedBackedOff = $0 { true } else { false } })
        await soon.stop()

        // A day after the refusal, a start delivers it.
        try await device.advance(days: 1)
        let later = try await device.launch(delivery: try await device.onDeviceLedger(database), database: database, productIDs: [Kit.report("career")])
        #expect(try await later.available("report.career") == 1)
        #expect(try await device.appStore.unfinishedTransactions().isEmpty)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func everyMessageHasALevelAndText() {
        let messages: [LogMessage] =
            [
                .verificationRefused(transactionID: "1", productID: "p", code: "wrong_bundle_id", reason: "r"),
                .deliveryRefused(transactionID: "1", productID: "p", code: "product_not_found", reason: "r"),
                .deliveryFailed(transactionID: "1", code: "network_error", reason: "r"),
                .retryScheduled(transactionID: "1", seconds: 2, failures: 1),
                .rejectedBackedOff(transactionID: "1", nextTry: Kit.start),
                .finished(transactionID: "1", productID: "p"), .refundTakenBack(transactionID: "1", productID: "p"),
                .restored(delivered: 1, failed: 0), .restoreFailed(code: "restore_failed", reason: "r"),
            ] + LogMessage.Operation.allCases.map { .operationFailed($0, code: "storage_failed", reason: "r") }
        for message in messages {
            #expect(!message.text.isEmpty)
        }
        #expect(messages.filter { $0.level == .fault }.count == 1, "only a refused verification is a fault")
    }
}
