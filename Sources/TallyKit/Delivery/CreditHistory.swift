public import Foundation

/// Where credits came from and what they were used for: the audit trail of each credit, when
/// it was acquired and what it was consumed for (a profile, a photo), from
/// ``PurchaseManager/creditHistory(currency:)``.
///
/// On the device (``OnDeviceLedger``) each consumption names the purchases it was taken from,
/// oldest first, so a report's credit can be traced to the purchase that paid for it. A Tally
/// server (``ServerDelivery``) lists acquisitions and consumptions from its ledger but does not
/// say which purchase a consumption was taken from (it spends oldest first too); there
/// ``Consumption/sources`` is empty, ``Acquisition/remaining`` is `nil`, and what a reservation
/// used carries the reference `reservation` rather than the app's.
///
/// ```swift
/// let history = try await manager.creditHistory(currency: "report.career")
/// for use in history.consumptions {
///     print(use.reference ?? "-", use.date, use.sources.map(\.acquiredAt))   // profile, when, bought when
/// }
/// ```
public struct CreditHistory: Sendable, Hashable {
    /// Credits that came in: a purchase, or on a server also sign-up grants and adjustments.
    public struct Acquisition: Sendable, Hashable {
        /// The store transaction that paid for it; `nil` for a grant without one (sign-up credits).
        public let transactionID: String?
        /// The currency.
        public let currency: String
        /// How many came in.
        public let amount: Int64
        /// When they were acquired (the purchase date).
        public let acquiredAt: Date
        /// How many of them are still usable (held ones included): not consumed, not taken back
        /// by a refund; `nil` where the destination does not say (a Tally server).
        public let remaining: Int64?

        /// - Parameters:
        ///   - transactionID: the paying transaction.
        ///   - currency: the currency.
        ///   - amount: how many.
        ///   - acquiredAt: when.
        ///   - remaining: how many are left.
        public init(transactionID: String?, currency: String, amount: Int64, acquiredAt: Date, remaining: Int64?) {
            self.transactionID = transactionID
            self.currency = currency
            self.amount = amount
            self.acquiredAt = acquiredAt
            self.remaining = remaining
        }
    }

    /// Credits used, never reversed.
    public struct Consumption: Sendable, Hashable {
        /// On the device, the spend's idempotency key (the reservation's id for
        /// ``PurchaseManager/consume(_:amount:for:work:)``); on a server, its ledger entry's id.
        public let id: String
        /// The currency.
        public let currency: String
        /// How many.
        public let amount: Int64
        /// What they were used for (a profile id, say), as the app passed it. A Tally server
        /// keeps the reference of a ``PurchaseManager/spend(_:amount:reference:idempotencyKey:)``
        /// but records `reservation` for what a reservation used (its API takes no reference), so
        /// ``PurchaseManager/consume(_:amount:for:work:)`` there cannot say for which profile.
        public let reference: String?
        /// When.
        public let date: Date
        /// The acquisitions they were taken from, oldest first; empty where the destination does
        /// not say (a Tally server).
        public let sources: [Source]

        /// - Parameters:
        ///   - id: the spend's key.
        ///   - currency: the currency.
        ///   - amount: how many.
        ///   - reference: what for.
        ///   - date: when.
        ///   - sources: where they were taken from.
        public init(id: String, currency: String, amount: Int64, reference: String?, date: Date, sources: [Source]) {
            self.id = id
            self.currency = currency
            self.amount = amount
            self.reference = reference
            self.date = date
            self.sources = sources
        }
    }

    /// The part of a consumption taken from one acquisition.
    public struct Source: Sendable, Hashable {
        /// The acquisition's transaction.
        public let transactionID: String?
        /// When that acquisition came in.
        public let acquiredAt: Date
        /// How many were taken from it.
        public let amount: Int64

        /// - Parameters:
        ///   - transactionID: the acquisition's transaction.
        ///   - acquiredAt: when it came in.
        ///   - amount: how many were taken from it.
        public init(transactionID: String?, acquiredAt: Date, amount: Int64) {
            self.transactionID = transactionID
            self.acquiredAt = acquiredAt
            self.amount = amount
        }
    }

    /// Acquisitions, oldest first.
    public var acquisitions: [Acquisition]
    /// Consumptions, oldest first.
    public var consumptions: [Consumption]

    /// - Parameters:
    ///   - acquisitions: oldest first.
    ///   - consumptions: oldest first.
    public init(acquisitions: [Acquisition], consumptions: [Consumption]) {
        self.acquisitions = acquisitions
        self.consumptions = consumptions
    }
}
