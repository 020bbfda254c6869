/// What kind of in-app product it is: how it is used up and how long it lasts.
public struct ProductKind: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Used up and bought again: credits, top-ups, reports.
    public static let consumable = Self(rawValue: "consumable")
    /// Bought once, kept.
    public static let nonConsumable = Self(rawValue: "non_consumable")
    /// A subscription that does not renew by itself.
    public static let nonRenewing = Self(rawValue: "non_renewing")
    /// A subscription that renews until cancelled.
    public static let autoRenewable = Self(rawValue: "auto_renewable")

    public static let all: [Self] = [.consumable, .nonConsumable, .nonRenewing, .autoRenewable]

    /// The kind of a transaction's product, from the App Store's `type`; nil for a type this
    /// version does not know.
    /// - Parameter type: the transaction's product type.
    public init?(_ type: AppStoreProductType) {
        let kinds: [AppStoreProductType: Self] = [
            .consumable: .consumable, .nonConsumable: .nonConsumable,
            .nonRenewingSubscription: .nonRenewing, .autoRenewableSubscription: .autoRenewable,
        ]
        guard let kind = kinds[type] else { return nil }
        self = kind
    }

    /// Whether it is a subscription, renewing or not.
    public var isSubscription: Bool { self == .nonRenewing || self == .autoRenewable }
}
