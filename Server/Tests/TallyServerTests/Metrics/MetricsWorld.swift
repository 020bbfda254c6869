import Foundation
import TallyCore
import TallySQL
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

@testable import TallyServer

/// Customers of simulated App Stores in production time (real months, no time rate), the
/// server's storage their notifications reach, and one clock for them all.
///
/// Each customer is an App Store account of their own (a ``SimulatedAppStore`` holds one
/// subscription per group). Every action delivers the notifications it made, as Apple posts them,
/// to ``NotificationStore/apply(_:jws:)``; ``advance(to:)`` moves every store and the server together
/// and delivers what the renewals, expiries and billing retries on the way made.
final class MetricsWorld: @unchecked Sendable {
    /// 2026-03-01T00:00:00Z, a Sunday.
    static let start = Harness.start

    // The catalog the customers buy from. Prices are milliunits of the storefront's currency.
    /// 14.99 a month, level 1 of the Pro group: buying it over the monthly plan upgrades at once.
    static let premium = "com.tally.metrics.premium"
    /// 9.99 a month, level 2, with a free week first (the group's introductory offer).
    static let monthly = "com.tally.metrics.monthly"
    /// 59.99 a year, level 2 (a change to or from it takes effect at the next renewal).
    static let yearly = "com.tally.metrics.yearly"
    /// 2.99 a week, the only plan of the Weekly group; family-shareable.
    static let weekly = "com.tally.metrics.weekly"
    /// A consumable of the server's catalog: 1.99, grants 10 credits.
    static let credits10 = "com.tally.photo.credits.10"
    /// A consumable of the server's catalog: 7.99, grants 50 credits.
    static let credits50 = "com.tally.photo.credits.50"
    /// A family-shareable non-consumable: 19.99.
    static let lifetime = "com.tally.zorya.lifetime"
    static let proGroup = "4D000001"
    static let weeklyGroup = "4D000002"

    /// The StoreKit configuration of the scenarios, in a storefront.
    static func storeKitConfiguration(storefront: String) -> StoreKitConfiguration {
        typealias Product = StoreKitConfiguration.Product
        func plan(_ id: String, _ price: Int64, level: Int, period: String, group: String, trial: Bool = false, shareable: Bool = false) -> Product {
            let freeWeek = SubscriptionOffer(
                id: nil, paymentMode: .freeTrial, period: SubscriptionPeriod(iso8601: "P1W")!, numberOfPeriods: 1, displayPrice: "0", price: 0)
            return Product(
                id: id, referenceName: id, kind: .autoRenewableSubscription, displayPrice: String(Double(price) / 1000), price: price,
                familyShareable: shareable,
                subscription: .init(
                    groupID: group, groupName: group, level: level, period: SubscriptionPeriod(iso8601: period)!,
                    introductoryOffer: trial ? freeWeek : nil))
        }
        let plans = [
            plan(premium, 14_990, level: 1, period: "P1M", group: proGroup),
            plan(monthly, 9_990, level: 2, period: "P1M", group: proGroup, trial: true),
            plan(yearly, 59_990, level: 2, period: "P1Y", group: proGroup),
            plan(weekly, 2_990, level: 1, period: "P1W", group: weeklyGroup, shareable: true),
        ]
        let oneTime = Harness.storeCatalog.products.filter { [credits10, credits50, lifetime].contains($0.id) }
        return StoreKitConfiguration(
            identifier: "metrics", products: plans + oneTime,
            subscriptionGroups: [
                SubscriptionGroup(id: proGroup, name: "Pro", productIDs: [premium, monthly, yearly]),
                SubscriptionGroup(id: weeklyGroup, name: "Weekly", productIDs: [weekly]),
            ],
            settings: StoreKitConfiguration.Settings(storefront: storefront, timeRate: .realTime))
    }

    /// One App Store account.
    final class Customer: @unchecked Sendable {
        let store: SimulatedAppStore
        /// The server's user whose app account token the purchases carry (so consumables grant credits), if any.
        let user: User?
        /// How many of the store's notifications reached the server.
        var delivered = 0

        init(store: SimulatedAppStore, user: User?) {
            self.store = store
            self.user = user
        }
    }

    let backend: Backend
    let database: any SQLDatabase
    let storage: SQLStorage
    let clock: ManualDate
    let verifier: SignedDataVerifier
    private(set) var customers: [Customer] = []
    /// How a notification reaches the storage: `apply` unless a test puts itself in between.
    var apply: (@Sendable (VerifiedNotification, String) async throws -> Void)?
    private let firstTransactionNumber = 2_000_000_700_000_000 + Int64.random(in: 0..<10_000) * 100_000

    convenience init(_ backend: Backend) async throws {
        try await self.init(backend, database: try await backend.makeDatabase())
    }

    /// A world over a database made elsewhere (already migrated).
    init(_ backend: Backend, database: any SQLDatabase) async throws {
        self.backend = backend
        self.database = database
        let clock = ManualDate(Self.start)
        self.clock = clock
        storage = SQLStorage(database: database, catalog: Harness.catalog, now: { clock.now })
        verifier = SignedDataVerifier(
            .init(
                bundleID: .equals("com.tally.example"), appAppleID: .equals(6_450_000_001), environments: [.sandbox, .production],
                rootCertificates: [Harness.authority.root]),
            now: { Harness.start })
    }

    var now: Date { clock.now }

    /// A new customer, at the world's time.
    /// - Parameters:
    ///   - environment: Production unless told.
    ///   - storefront: `USA` (USD) unless told; `DEU` charges EUR.
    ///   - withUser: a server user whose token the purchases carry.
    ///   - gracePeriod: whether a failed renewal keeps access for a grace period first.
    func customer(
        _ environment: AppStoreEnvironment = .production, storefront: String = "USA", withUser: Bool = false, gracePeriod: Bool = false
    ) async throws -> Customer {
        var configuration = SimulatedAppStore.Configuration(
            catalog: Self.storeKitConfiguration(storefront: storefront), bundleID: "com.tally.example", appAppleID: 6_450_000_001,
            environment: environment)
        configuration.timeRate = .realTime
        configuration.firstTransactionNumber = firstTransactionNumber + Int64(customers.count) * 1_000
        let store = try SimulatedAppStore(configuration: configuration, authority: Harness.authority, time: .manual(start: Self.start))
        try await store.advance(by: .seconds(now.timeIntervalSince(Self.start)))
        if gracePeriod { try await store.updateSettings { $0.billingGracePeriodEnabled = true } }
        let user = withUser ? try await storage.users.createUser(appUserID: nil, tokenHash: UUID().uuidString).0 : nil
        let customer = Customer(store: store, user: user)
        customers.append(customer)
        return customer
    }

    /// Moves every store and the server to `date`, then delivers what happened on the way.
    func advance(to date: Date) async throws {
        let seconds = date.timeIntervalSince(now)
        precondition(seconds >= 0, "the world moves forward only")
        for customer in customers { try await customer.store.advance(by: .seconds(seconds)) }
        clock.set(date)
        try await deliver()
    }

    /// Moves to an ISO 8601 instant, such as `2026-03-08T10:00:00Z`.
    func advance(to text: String) async throws {
        try await advance(to: Self.instant(text))
    }

    /// Delivers every notification not delivered yet, of every store, oldest first.
    func deliver() async throws {
        var due: [(Customer, SimulatedAppStore.SentNotification)] = []
        for customer in customers {
            let sent = await customer.store.notifications
            due += sent.dropFirst(customer.delivered).map { (customer, $0) }
            customer.delivered = sent.count
        }
        for (_, notification) in due.sorted(by: { $0.1.createdAt < $1.1.createdAt }) {
            let verified = try await verifier.verifyNotification(notification.signedPayload, includingSignedData: true).get()
            if let apply {
                try await apply(verified, notification.signedPayload)
            } else {
                _ = try await storage.notifications.apply(verified, jws: notification.signedPayload)
            }
        }
    }

    /// Buys a product now; its notification reaches the server.
    @discardableResult
    func buy(_ customer: Customer, _ productID: String, quantity: Int = 1) async throws -> SimulatedAppStore.SignedTransaction {
        let options = SimulatedAppStore.PurchaseOptions(appAccountToken: customer.user?.appAccountToken, quantity: quantity, outcome: .success)
        guard case .success(let transaction) = try await customer.store.purchase(productID, options: options) else {
            throw TestFailure("the purchase of \(productID) did not succeed")
        }
        try await deliver()
        return transaction
    }

    /// Turns auto-renew of the customer's subscription of `productID`'s group off or on.
    func setAutoRenew(_ customer: Customer, _ transaction: SimulatedAppStore.SignedTransaction, _ enabled: Bool) async throws {
        try await customer.store.setAutoRenew(originalTransactionID: try #require(transaction.payload.originalTransactionID), enabled: enabled)
        try await deliver()
    }

    /// Apple refunds a transaction now.
    func refund(_ customer: Customer, _ transaction: SimulatedAppStore.SignedTransaction) async throws {
        try await customer.store.refund(transactionID: transaction.transactionID)
        try await deliver()
    }

    /// Apple reverses a refund now.
    func reverseRefund(_ customer: Customer, _ transaction: SimulatedAppStore.SignedTransaction) async throws {
        try await customer.store.reverseRefund(transactionID: transaction.transactionID)
        try await deliver()
    }

    /// The customer's newest transaction of a product (a renewal, say).
    func latest(_ customer: Customer, _ productID: String) async throws -> SimulatedAppStore.SignedTransaction {
        try #require(try await customer.store.history(includingFinishedConsumables: true).last { $0.productID == productID })
    }

    /// Shares a purchase with a family member, whose copy the server learns from Apple (there is
    /// no notification of it).
    func shareWithFamily(_ customer: Customer, _ transaction: SimulatedAppStore.SignedTransaction) async throws {
        let copy = try await customer.store.shareWithFamily(transactionID: transaction.transactionID)
        let verified = try await verifier.verifyTransaction(copy.jws).get()
        #expect(verified.payload.inAppOwnershipType == .familyShared)
        try await storage.notifications.recordFromApple(verified, jws: copy.jws, renewal: nil, renewalJWS: nil)
    }

    /// The metrics of the days `from` through `through` (`yyyy-MM-dd`).
    func metrics(
        _ from: String, _ through: String, environment: String = "Production", productID: String? = nil, group: String? = nil
    ) async throws -> MetricsReport {
        try await storage.metrics.report(
            MetricsQuery(from: Self.day(from), through: Self.day(through), environment: environment, productID: productID, subscriptionGroup: group))
    }

    // MARK: - Dates

    /// The UTC midnight of a day written `yyyy-MM-dd`.
    static func day(_ text: String) -> Date {
        instant(text + "T00:00:00Z")
    }

    /// An ISO 8601 instant.
    static func instant(_ text: String) -> Date {
        guard let date = ISO8601DateFormatter().date(from: text) else { preconditionFailure("not an ISO 8601 date: \(text)") }
        return date
    }
}

/// Reading a report by day, the way the tests write their expectations.
extension MetricsReport {
    /// The line of a day (`yyyy-MM-dd`).
    func day(_ text: String) throws -> Day {
        try #require(days.first { $0.start == MetricsWorld.day(text) }, "no line for \(text)")
    }

    /// Revenue of a day and currency; zeros when the report has no line for them.
    func revenue(_ text: String, _ currency: String = "USD") -> Revenue {
        revenue.first { $0.day == MetricsWorld.day(text) && $0.currency == currency }
            ?? Revenue(day: MetricsWorld.day(text), currency: currency, purchases: 0, milliunits: 0, refunds: 0, refundedMilliunits: 0)
    }

    /// MRR of a currency; zeros when the report has no line for it.
    func mrr(_ currency: String = "USD") -> MRR {
        mrr.first { $0.currency == currency }
            ?? MRR(currency: currency, milliunits: 0, startMilliunits: 0, new: 0, expansion: 0, contraction: 0, churned: 0)
    }

    /// The trial cohort of a month (`yyyy-MM`); zeros when there is none.
    func trials(_ month: String) -> TrialCohort {
        trialCohorts.first { $0.month == MetricsWorld.day(month + "-01") }
            ?? TrialCohort(month: MetricsWorld.day(month + "-01"), started: 0, converted: 0)
    }

    /// The retention cohort of a month (`yyyy-MM`); empty when there is none.
    func retention(_ month: String) -> RetentionCohort {
        retention.first { $0.month == MetricsWorld.day(month + "-01") }
            ?? RetentionCohort(month: MetricsWorld.day(month + "-01"), subscribers: 0, retained: [])
    }

    /// Credits of a currency; zeros when the report has no line for it.
    func credits(_ currency: String) -> Credits {
        credits.first { $0.currency == currency } ?? Credits(currency: currency, sold: 0, spent: 0, outstanding: 0)
    }

    /// One figure for every day of the report, in order.
    func series(_ figure: KeyPath<Day, Int64>) -> [Int64] {
        days.map { $0[keyPath: figure] }
    }
}

/// A day-by-day series: `runs((7, 2), (12, 0))` is seven 2s then twelve 0s.
func runs(_ runs: (count: Int, value: Int64)...) -> [Int64] {
    runs.flatMap { Array(repeating: $0.value, count: $0.count) }
}

/// A series of `count` days from `first` (`yyyy-MM-dd`), zero except on the days given.
func sparse(from first: String, days count: Int, _ values: [String: Int64]) -> [Int64] {
    let start = MetricsWorld.day(first)
    var series = Array(repeating: Int64(0), count: count)
    for (day, value) in values {
        let index = Int(MetricsWorld.day(day).timeIntervalSince(start) / 86_400)
        precondition(series.indices.contains(index), "\(day) is outside the window")
        series[index] = value
    }
    return series
}
