public import Foundation

/// Advanced Commerce API details of a transaction.
public struct AdvancedCommerceTransactionInfo: Codable, Hashable, Sendable {
    /// The display name and description.
    public var descriptors: AdvancedCommerceDescriptors?
    /// The estimated tax, in milliunits.
    public var estimatedTax: Int64?
    /// The items of the purchase.
    public var items: [AdvancedCommerceTransactionItem]?
    /// The billing period, ISO 8601 (`P1M`).
    public var period: AdvancedCommercePeriod?
    /// The identifier of the request that created the purchase.
    public var requestReferenceID: String?
    /// The tax code of the item.
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
    /// A token that ties renewal info to its latest state.
    public var consistencyToken: String?
    /// The display name and description.
    public var descriptors: AdvancedCommerceDescriptors?
    /// The items of the purchase.
    public var items: [AdvancedCommerceRenewalItem]?
    /// The billing period, ISO 8601 (`P1M`).
    public var period: AdvancedCommercePeriod?
    /// The identifier of the request that created the purchase.
    public var requestReferenceID: String?
    /// The tax code of the item.
    public var taxCode: String?

    /// An empty value; set the fields you need.
    public init() {}
}

/// The display name and description of an Advanced Commerce purchase.
public struct AdvancedCommerceDescriptors: Codable, Hashable, Sendable {
    /// The description shown to the customer.
    public var description: String?
    /// The name shown to the customer.
    public var displayName: String?

    /// An empty value; set the fields you need.
    public init() {}
}

/// One item of an Advanced Commerce transaction.
public struct AdvancedCommerceTransactionItem: Codable, Hashable, Sendable {
    /// The item's SKU.
    public var SKU: String?
    /// The description shown to the customer.
    public var description: String?
    /// The name shown to the customer.
    public var displayName: String?
    /// A discount that applies to the item.
    public var offer: AdvancedCommerceOffer?
    /// The price in milliunits.
    public var price: Int64?
    /// Refunds of the item.
    public var refunds: [AdvancedCommerceRefund]?
    /// When the item was revoked.
    public var revocationDate: Date?

    /// An empty value; set the fields you need.
    public init() {}
}

/// One item of an Advanced Commerce subscription's renewal.
public struct AdvancedCommerceRenewalItem: Codable, Hashable, Sendable {
    /// The item's SKU.
    public var SKU: String?
    /// The description shown to the customer.
    public var description: String?
    /// The name shown to the customer.
    public var displayName: String?
    /// A discount that applies to the item.
    public var offer: AdvancedCommerceOffer?
    /// The price in milliunits.
    public var price: Int64?
    /// A scheduled price increase.
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    /// An empty value; set the fields you need.
    public init() {}
}

/// A discount on an Advanced Commerce item.
public struct AdvancedCommerceOffer: Codable, Hashable, Sendable {
    /// The billing period, ISO 8601 (`P1M`).
    public var period: AdvancedCommercePeriod?
    /// How many periods the offer lasts.
    public var periodCount: Int?
    /// The discounted price in milliunits.
    public var price: Int64?
    /// Why the offer applies.
    public var reason: AdvancedCommerceOfferReason?

    /// An empty value; set the fields you need.
    public init() {}
}

/// A refund of an Advanced Commerce item.
public struct AdvancedCommerceRefund: Codable, Hashable, Sendable {
    /// The refunded amount in milliunits.
    public var refundAmount: Int64?
    /// When the refund was made.
    public var refundDate: Date?
    /// Why the item was refunded.
    public var refundReason: AdvancedCommerceRefundReason?
    /// How much was refunded.
    public var refundType: AdvancedCommerceRefundType?

    /// An empty value; set the fields you need.
    public init() {}
}

/// A scheduled price increase of an Advanced Commerce item.
public struct AdvancedCommercePriceIncreaseInfo: Codable, Hashable, Sendable {
    /// The SKUs whose price changes with it.
    public var dependentSKUs: [String]?
    /// The new price in milliunits.
    public var price: Int64?
    /// The state of the price increase.
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
