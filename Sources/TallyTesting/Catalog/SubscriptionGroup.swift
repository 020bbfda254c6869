/// A subscription group: subscriptions a customer can hold only one of at a time, ranked by level.
public struct SubscriptionGroup: Sendable, Hashable, Identifiable {
    /// The group's identifier (`id`), which its subscriptions name in `subscriptionGroupID`.
    public var id: String
    /// The group's reference name.
    public var name: String
    /// The group's localized names, possibly none.
    public var localizations: [StoreKitConfiguration.Localization]
    /// The product identifiers of its subscriptions, in file order.
    public var productIDs: [String]

    /// - Parameters:
    ///   - id: the group's identifier.
    ///   - name: the reference name.
    ///   - localizations: localized names.
    ///   - productIDs: its subscriptions' identifiers.
    public init(id: String, name: String, localizations: [StoreKitConfiguration.Localization] = [], productIDs: [String] = []) {
        self.id = id
        self.name = name
        self.localizations = localizations
        self.productIDs = productIDs
    }
}
