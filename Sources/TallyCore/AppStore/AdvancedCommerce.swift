public import Foundation

/// Advanced Commerce API details of a transaction.
public struct AdvancedCommerceTransactionInfo: Codable, Hashable, Sendable {
    public var descriptors: AdvancedCommerceDescriptors?
    /// The estimated tax, in milliunits.
    public var estimatedTax: Int64?
    public var items: [AdvancedCommerceTransactionItem]?
    /// The billing period, ISO 8601 (`P1M`).
    public var period: AdvancedCommercePeriod?
    public var requestReferenceId: String?
    public var taxCode: String?
    /// The price before tax, in milliunits.
    public var taxExclusivePrice: Int64?
    /// The tax rate as a decimal string (`0.15`).
    public var taxRate: String?

    /// An empty value; set the fields you need.
    public init() {}
}

/// Advanced Commerce API details of a subscription's renewal.
public struct AdvancedCommerceRenewalInfo: Codable, Hashable, Sendable {
    public var consistencyToken: String?
    public var descriptors: AdvancedCommerceDescriptors?
    public var items: [AdvancedCommerceRenewalItem]?
    public var period: AdvancedCommercePeriod?
    public var requestReferenceId: String?
    public var taxCode: String?

    /// An empty value; set the fields you need.
    public init() {}
}

/// The display name and description of an Advanced Commerce purchase.
public struct AdvancedCommerceDescriptors: Codable, Hashable, Sendable {
    public var description: String?
    public var displayName: String?

    /// An empty value; set the fields you need.
    public init() {}
}

/// One item of an Advanced Commerce transaction.
public struct AdvancedCommerceTransactionItem: Codable, Hashable, Sendable {
    public var SKU: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    /// The price in milliunits.
    public var price: Int64?
    public var refunds: [AdvancedCommerceRefund]?
    public var revocationDate: Date?

    /// An empty value; set the fields you need.
    public init() {}
}

/// One item of an Advanced Commerce subscription's renewal.
public struct AdvancedCommerceRenewalItem: Codable, Hashable, Sendable {
    public var SKU: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    /// The price in milliunits.
    public var price: Int64?
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    /// An empty value; set the fields you need.
    public init() {}
}

/// A discount on an Advanced Commerce item.
public struct AdvancedCommerceOffer: Codable, Hashable, Sendable {
    public var period: AdvancedCommercePeriod?
    public var periodCount: Int?
    /// The discounted price in milliunits.
    public var price: Int64?
    public var reason: AdvancedCommerceOfferReason?

    /// An empty value; set the fields you need.
    public init() {}
}

/// A refund of an Advanced Commerce item.
public struct AdvancedCommerceRefund: Codable, Hashable, Sendable {
    /// The refunded amount in milliunits.
    public var refundAmount: Int64?
    public var refundDate: Date?
    public var refundReason: AdvancedCommerceRefundReason?
    public var refundType: AdvancedCommerceRefundType?

    /// An empty value; set the fields you need.
    public init() {}
}

/// A scheduled price increase of an Advanced Commerce item.
public struct AdvancedCommercePriceIncreaseInfo: Codable, Hashable, Sendable {
    public var dependentSKUs: [String]?
    /// The new price in milliunits.
    public var price: Int64?
    public var status: AdvancedCommercePriceIncreaseStatus?

    /// An empty value; set the fields you need.
    public init() {}
}

/// A billing or offer period of the Advanced Commerce API, ISO 8601 (`P1M`, `P1Y`).
public struct AdvancedCommercePeriod: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// Why an Advanced Commerce offer applies (`ACQUISITION`, `WIN_BACK`, `RETENTION`).
public struct AdvancedCommerceOfferReason: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// Why an Advanced Commerce item was refunded.
public struct AdvancedCommerceRefundReason: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// How much of an Advanced Commerce item was refunded (`FULL`, `PRORATED`, `CUSTOM`).
public struct AdvancedCommerceRefundType: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The state of a price increase (`SCHEDULED`, `PENDING`, `ACCEPTED`).
public struct AdvancedCommercePriceIncreaseStatus: AppStoreRawValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}
