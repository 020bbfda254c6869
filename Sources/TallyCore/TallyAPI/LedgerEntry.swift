public import Foundation

/// One ledger entry.
public struct LedgerEntry: Codable, Hashable, Sendable {
    /// Increasing with time; the paging cursor.
    public var id: Int64
    public var currency: String
    /// Why the amount moved.
    public var kind: LedgerEntryKind
    /// Which part of the balance it moved.
    public var bucket: LedgerBucket
    /// Signed: positive grants, negative takes.
    public var amount: Int64
    public var transactionID: String?
    public var reference: String?
    public var createdAt: Date

    /// Creates a value with every field.
    public init(
        id: Int64, currency: String, kind: LedgerEntryKind, bucket: LedgerBucket, amount: Int64, transactionID: String? = nil, reference: String? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.currency = currency
        self.kind = kind
        self.bucket = bucket
        self.amount = amount
        self.transactionID = transactionID
        self.reference = reference
        self.createdAt = createdAt
    }
}

/// The answer to `GET /v1/me/ledger`.
public struct LedgerPage: Codable, Hashable, Sendable {
    /// Newest first.
    public var entries: [LedgerEntry]
    /// Pass as `cursor` for the next page; nil on the last.
    public var nextCursor: String?

    /// Creates a value with every field.
    public init(entries: [LedgerEntry], nextCursor: String? = nil) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}
