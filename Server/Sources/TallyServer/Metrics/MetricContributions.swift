import Foundation
import TallyCore
import TallySQL

/// A figure a row of `metric_days` keeps (docs/metrics.md defines each).
enum MetricFigure: String, CaseIterable, Sendable {
    /// Payments and their signed prices, on their purchase day.
    case purchases, revenue
    /// Refunds and revocations and the prices they took back, on their day.
    case refunds, refunded
    /// Changes of the paid subscriptions, trials and annual run-rate active: +1 (or the price)
    /// on the day a period starts, −1 on the day it ends; a day's state is the sum until then.
    case active, trials, arr
    /// Paid runs begun, periods renewed, runs ended, trials started, on their day.
    case new, renewed, churned
    case trialStarted = "trial_started"
    /// On the day its trial started: a trial followed by a paid period.
    case trialConverted = "trial_converted"
    /// The annual run-rate a movement added or took, on its day.
    case arrNew = "arr_new"
    case arrExpansion = "arr_expansion"
    case arrContraction = "arr_contraction"
    case arrChurned = "arr_churned"
    /// On the day a paid run began, with `span` the whole months it lasted.
    case paidRun = "paid_run"
    /// The ledger's entries of a kind (`subject`) on a day: their amounts and their count;
    /// `span` 0 for the balance, 1 for the allowance. Environment `""`: the ledger has none.
    case ledgerAmount = "ledger_amount"
    case ledgerEntries = "ledger_entries"
}

/// The key of one row of `metric_days`.
struct MetricKey: Hashable, Sendable {
    var environment: String
    var figure: MetricFigure
    /// Days since 1970-01-01 UTC.
    var day: Int64
    /// A product id, or for the ledger's figures an entry kind.
    var subject: String
    var currency: String
    var span: Int64 = 0
}

/// What some stored data adds to the rollups: changes per key, and each product's
/// subscription group (written with its rows).
struct MetricContributions: Sendable, Equatable {
    var values: [MetricKey: Int64] = [:]
    var groups: [String: String] = [:]

    mutating func add(_ key: MetricKey, _ value: Int64, group: String? = nil) {
        guard value != 0 else { return }
        values[key, default: 0] += value
        if let group { groups[key.subject] = group }
    }

    mutating func add(_ other: MetricContributions, times sign: Int64 = 1) {
        for (key, value) in other.values { values[key, default: 0] += sign * value }
        groups.merge(other.groups) { $1 }
    }

    /// The keys whose change is not zero.
    var changes: [(MetricKey, Int64)] { values.filter { $0.value != 0 }.map { ($0.key, $0.value) } }

    static let millisPerDay: Int64 = 86_400_000

    /// The UTC day an instant (epoch milliseconds) falls in.
    static func day(_ millis: Int64) -> Int64 {
        millis >= 0 ? millis / millisPerDay : (millis - millisPerDay + 1) / millisPerDay
    }
}

/// A stored transaction as the rollups read it: a row of `store_transactions` (its ``columns``).
struct MetricsTransaction: Sendable, Hashable, SQLRowDecodable {
    typealias Columns = StoreTransaction.Columns

    var transactionID: String
    var originalTransactionID: String
    var productID: String
    var kind: ProductKind
    var environment: String
    /// Epoch milliseconds.
    var purchaseDate: Int64?
    var expiresDate: Int64?
    var price: Int64?
    var currency: String?
    var revoked: Bool
    var revokedAt: Int64?
    var familyShared: Bool
    var subscriptionGroup: String?

    /// The columns it is read from.
    static let columns: SQL = """
        \(Columns.transactionID), \(Columns.originalTransactionID), \(Columns.productID), \(Columns.productKind), \(Columns.environment), \
        \(Columns.purchaseDate), \(Columns.expiresDate), \(Columns.price), \(Columns.currency), \(Columns.revoked), \(Columns.revocationEventAt), \
        \(Columns.ownership), \(Columns.subscriptionGroup)
        """

    init(row: SQLRow) throws(SQLDatabaseError) {
        transactionID = try row.text(Columns.transactionID)
        originalTransactionID = try row.text(Columns.originalTransactionID)
        productID = try row.text(Columns.productID)
        kind = try row.code(ProductKind.self, Columns.productKind)
        environment = try row.text(Columns.environment)
        purchaseDate = try row.optionalInt(Columns.purchaseDate)
        expiresDate = try row.optionalInt(Columns.expiresDate)
        price = try row.optionalInt(Columns.price)
        currency = try row.optionalText(Columns.currency)
        revoked = try row.int(Columns.revoked) == 1
        revokedAt = try row.optionalInt(Columns.revocationEventAt)
        familyShared = try row.optionalText(Columns.ownership) == InAppOwnershipType.familyShared.rawValue
        subscriptionGroup = try row.optionalText(Columns.subscriptionGroup)
    }

    init(_ transaction: StoreTransaction, payload: TransactionPayload) {
        transactionID = transaction.transactionID
        originalTransactionID = transaction.originalTransactionID
        productID = transaction.productID
        kind = transaction.kind
        environment = transaction.environment
        purchaseDate = payload.purchaseDate.map(EpochMilliseconds.of)
        expiresDate = transaction.expiresAt
        price = transaction.price
        currency = transaction.currency
        revoked = transaction.revoked
        revokedAt = nil
        familyShared = payload.inAppOwnershipType == .familyShared
        subscriptionGroup = payload.subscriptionGroupIdentifier
    }
}

extension MetricContributions {
    /// What the transactions of one original transaction add: each payment and refund, and,
    /// for a subscription, its periods, runs, trials and MRR (docs/metrics.md).
    static func of(_ transactions: [MetricsTransaction]) -> MetricContributions {
        var result = MetricContributions()
        let counted = transactions.filter { !$0.familyShared }
        for transaction in counted {
            guard let purchased = transaction.purchaseDate else { continue }
            let currency = transaction.currency ?? ""
            let group = transaction.subscriptionGroup ?? ""
            func key(_ figure: MetricFigure, _ at: Int64) -> MetricKey {
                MetricKey(environment: transaction.environment, figure: figure, day: day(at), subject: transaction.productID, currency: currency)
            }
            result.add(key(.purchases, purchased), 1, group: group)
            result.add(key(.revenue, purchased), transaction.price ?? 0, group: group)
            if transaction.revoked, let at = transaction.revokedAt {
                result.add(key(.refunds, at), 1, group: group)
                result.add(key(.refunded, at), transaction.price ?? 0, group: group)
            }
        }
        result.add(SubscriptionPeriods(counted.filter { $0.kind == .autoRenewable }).contributions)
        return result
    }
}
