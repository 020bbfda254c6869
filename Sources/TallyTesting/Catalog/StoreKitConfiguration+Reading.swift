import Foundation

/// A value of the parsed document and its path from the root, for error messages.
struct StoreKitJSONNode {
    let value: Any
    let path: String

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member `key`, or `nil` when it is absent or `null`.
    func member(_ key: String) throws(StoreKitConfigurationError) -> StoreKitJSONNode? {
        guard let object = value as? [String: Any] else { throw mismatch("an object") }
        guard let member = object[key], !(member is NSNull) else { return nil }
        return StoreKitJSONNode(value: member, path: child(key))
    }

    /// The member `key`, which must be present and not `null`.
    func required(_ key: String) throws(StoreKitConfigurationError) -> StoreKitJSONNode {
        guard let node = try member(key) else {
            throw StoreKitConfigurationError(.missingValue, path: child(key), reason: "missing")
        }
        return node
    }

    func object() throws(StoreKitConfigurationError) -> StoreKitJSONNode {
        guard value is [String: Any] else { throw mismatch("an object") }
        return self
    }

    func string() throws(StoreKitConfigurationError) -> String {
        guard let string = value as? String else { throw mismatch("a string") }
        return string
    }

    func bool() throws(StoreKitConfigurationError) -> Bool {
        guard let number = value as? NSNumber, Self.isBoolean(number) else { throw mismatch("a boolean") }
        return number.boolValue
    }

    func int() throws(StoreKitConfigurationError) -> Int {
        guard let number = value as? NSNumber, !Self.isBoolean(number), let integer = Int(exactly: number) else {
            throw mismatch("an integer")
        }
        return integer
    }

    func array() throws(StoreKitConfigurationError) -> [StoreKitJSONNode] {
        guard let array = value as? [Any] else { throw mismatch("an array") }
        return array.enumerated().map { StoreKitJSONNode(value: $0.element, path: "\(path)[\($0.offset)]") }
    }

    func invalid(_ reason: String) -> StoreKitConfigurationError {
        StoreKitConfigurationError(.invalidValue, path: path, reason: reason)
    }

    private func mismatch(_ expected: String) -> StoreKitConfigurationError {
        StoreKitConfigurationError(.wrongType, path: path, reason: "expected \(expected), found \(kindName)")
    }

    var kindName: String {
        switch value {
        case is NSNull: "null"
        case is String: "a string"
        case let number as NSNumber: Self.isBoolean(number) ? "a boolean" : "a number"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        default: "an unknown value"
        }
    }

    /// JSONSerialization hands booleans back as NSNumbers whose type is `char`, on Darwin and Linux alike.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}

/// Turns the parsed document into a ``StoreKitConfiguration``.
enum StoreKitConfigurationReader {
    static func read(_ root: StoreKitJSONNode) throws(StoreKitConfigurationError) -> StoreKitConfiguration {
        let identifier = try root.member("identifier")?.string()
        let settings =
            try root.member("settings").map { node throws(StoreKitConfigurationError) in try readSettings(node.object()) }
            ?? StoreKitConfiguration.Settings()

        var products: [StoreKitConfiguration.Product] = []
        var seen: [String: String] = [:]
        func add(_ product: StoreKitConfiguration.Product, at node: StoreKitJSONNode) throws(StoreKitConfigurationError) {
            if let first = seen[product.id] {
                throw StoreKitConfigurationError(
                    .duplicateProduct, path: node.child("productID"), reason: "\"\(product.id)\" is already the identifier of \(first)")
            }
            seen[product.id] = node.path
            products.append(product)
        }

        for node in try root.member("nonRenewingSubscriptions")?.array() ?? [] {
            try add(readProduct(node, allowed: [.nonRenewingSubscription], section: "nonRenewingSubscriptions", group: nil), at: node)
        }
        for node in try root.member("products")?.array() ?? [] {
            try add(readProduct(node, allowed: [.consumable, .nonConsumable], section: "products", group: nil), at: node)
        }

        let groupNodes = try root.member("subscriptionGroups")?.array() ?? []
        var groupIDs: Set<String> = []
        for node in groupNodes {
            groupIDs.insert(try node.object().required("id").string())
        }
        var groups: [SubscriptionGroup] = []
        for node in groupNodes {
            var group = SubscriptionGroup(
                id: try node.required("id").string(),
                name: try node.member("name")?.string() ?? "",
                localizations: try (node.member("localizations")?.array() ?? []).map { item throws(StoreKitConfigurationError) in
                    try readLocalization(item, displayNameRequired: false)
                })
            for subscription in try node.member("subscriptions")?.array() ?? [] {
                let product = try readProduct(
                    subscription, allowed: [.autoRenewableSubscription], section: "subscriptionGroups[].subscriptions",
                    group: (group.id, group.name, groupIDs))
                try add(product, at: subscription)
                group.productIDs.append(product.id)
            }
            groups.append(group)
        }
        return StoreKitConfiguration(identifier: identifier, products: products, subscriptionGroups: groups, settings: settings)
    }

    // MARK: - Products

    private static func readProduct(
        _ node: StoreKitJSONNode, allowed: [StoreKitConfiguration.Product.Kind], section: String,
        group: (id: String, name: String, known: Set<String>)?
    ) throws(StoreKitConfigurationError) -> StoreKitConfiguration.Product {
        let node = try node.object()
        let idNode = try node.required("productID")
        let id = try idNode.string()
        guard !id.isEmpty else { throw idNode.invalid("the product identifier is empty") }

        let typeNode = try node.required("type")
        let type = try typeNode.string()
        guard let kind = StoreKitConfiguration.Product.Kind(rawValue: type) else {
            throw typeNode.invalid("unknown product type \"\(type)\"; expected Consumable, NonConsumable, NonRenewingSubscription or RecurringSubscription")
        }
        guard allowed.contains(kind) else {
            throw typeNode.invalid("a \(type) product does not belong in \(section)")
        }

        let priceNode = try node.required("displayPrice")
        let displayPrice = try priceNode.string()
        let price = try milliunits(displayPrice, at: priceNode)

        let localizations = try (node.member("localizations")?.array() ?? []).map { item throws(StoreKitConfigurationError) in
            try readLocalization(item, displayNameRequired: true)
        }
        var product = StoreKitConfiguration.Product(
            id: id,
            referenceName: try node.member("referenceName")?.string() ?? "",
            kind: kind,
            displayPrice: displayPrice,
            price: price,
            familyShareable: try node.member("familyShareable")?.bool() ?? false,
            localizations: localizations)
        if kind == .autoRenewableSubscription, let group {
            product.subscription = try readSubscription(node, group: group)
        }
        return product
    }

    private static func readLocalization(
        _ node: StoreKitJSONNode, displayNameRequired: Bool
    ) throws(StoreKitConfigurationError) -> StoreKitConfiguration.Localization {
        let node = try node.object()
        let displayName = displayNameRequired ? try node.required("displayName").string() : try node.member("displayName")?.string() ?? ""
        return StoreKitConfiguration.Localization(
            locale: try node.required("locale").string(),
            displayName: displayName,
            description: try node.member("description")?.string() ?? "")
    }

    private static func readSubscription(
        _ node: StoreKitJSONNode, group: (id: String, name: String, known: Set<String>)
    ) throws(StoreKitConfigurationError) -> StoreKitConfiguration.SubscriptionInfo {
        if let groupIDNode = try node.member("subscriptionGroupID") {
            let named = try groupIDNode.string()
            guard group.known.contains(named) else {
                throw StoreKitConfigurationError(.unknownGroup, path: groupIDNode.path, reason: "names no group: \"\(named)\"")
            }
            guard named == group.id else {
                throw StoreKitConfigurationError(
                    .unknownGroup, path: groupIDNode.path, reason: "names group \"\(named)\", but the subscription is in group \"\(group.id)\"")
            }
        }
        let levelNode = try node.required("groupNumber")
        let level = try levelNode.int()
        guard level >= 1 else { throw levelNode.invalid("a level is 1 or more, found \(level)") }

        let periodNode = try node.required("recurringSubscriptionPeriod")
        let period = try readPeriod(periodNode)

        var introductory: SubscriptionOffer?
        if let offer = try node.member("introductoryOffer") {
            introductory = try readOffer(offer, identifier: .none)
        } else if let first = try node.member("introductoryOffers")?.array().first {
            introductory = try readOffer(first, identifier: .none)
        }
        func offers(_ key: String, identifier: OfferIdentifier) throws(StoreKitConfigurationError) -> [SubscriptionOffer] {
            try (node.member(key)?.array() ?? []).map { item throws(StoreKitConfigurationError) in
                try readOffer(item, identifier: identifier)
            }
        }
        return StoreKitConfiguration.SubscriptionInfo(
            groupID: group.id, groupName: group.name, level: level, period: period,
            introductoryOffer: introductory,
            promotionalOffers: try offers("adHocOffers", identifier: .required),
            winBackOffers: try offers("winbackOffers", identifier: .required),
            offerCodes: try offers("codeOffers", identifier: .optional))
    }

    /// Whether an offer has an `offerID`: promotional and win-back offers must, offer codes
    /// may, and an introductory offer has none.
    private enum OfferIdentifier { case none, optional, required }

    private static func readOffer(_ node: StoreKitJSONNode, identifier: OfferIdentifier) throws(StoreKitConfigurationError) -> SubscriptionOffer {
        let node = try node.object()
        let id: String? =
            switch identifier {
            case .none: nil
            case .optional: try node.member("offerID")?.string()
            case .required: try node.required("offerID").string()
            }
        let modeNode = try node.required("paymentMode")
        let modeText = try modeNode.string()
        guard let mode = SubscriptionOffer.PaymentMode(rawValue: modeText) else {
            throw modeNode.invalid("unknown payment mode \"\(modeText)\"; expected free, payAsYouGo or payUpFront")
        }
        let period = try readPeriod(node.required("subscriptionPeriod"))
        var count = 1
        if let countNode = try node.member("numberOfPeriods") {
            count = try countNode.int()
            guard count >= 1 else { throw countNode.invalid("an offer lasts 1 period or more, found \(count)") }
        }
        var displayPrice: String?
        var price: Int64 = 0
        if let priceNode = try node.member("displayPrice") {
            let text = try priceNode.string()
            let parsed = try milliunits(text, at: priceNode)
            displayPrice = text
            price = mode == .freeTrial ? 0 : parsed
        } else if mode != .freeTrial {
            throw StoreKitConfigurationError(.missingValue, path: node.child("displayPrice"), reason: "missing; a \(modeText) offer has a price")
        }
        return SubscriptionOffer(id: id, paymentMode: mode, period: period, numberOfPeriods: count, displayPrice: displayPrice, price: price)
    }

    private static func readPeriod(_ node: StoreKitJSONNode) throws(StoreKitConfigurationError) -> SubscriptionPeriod {
        let text = try node.string()
        guard let period = SubscriptionPeriod(iso8601: text) else {
            throw node.invalid("\"\(text)\" is not an ISO 8601 period such as P1W, P1M or P1Y")
        }
        return period
    }

    /// Exact milliunits of a decimal price: digits, then optionally a point and 1 to 3 digits.
    /// No sign, exponent, grouping or floating point; at most 15 whole digits, so it always fits.
    static func milliunits(_ text: String, at node: StoreKitJSONNode) throws(StoreKitConfigurationError) -> Int64 {
        guard let value = milliunits(text) else {
            throw node.invalid("\"\(text)\" is not a decimal price with at most 3 fractional digits")
        }
        return value
    }

    static func milliunits(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        let point = bytes.firstIndex(of: UInt8(ascii: "."))
        let whole = bytes[..<(point ?? bytes.count)]
        let fraction = point.map { bytes[($0 + 1)...] } ?? []
        func isDigits(_ part: ArraySlice<UInt8>) -> Bool {
            part.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        guard (1...15).contains(whole.count), isDigits(whole), isDigits(fraction) else { return nil }
        if point != nil, !(1...3).contains(fraction.count) { return nil }
        var value: Int64 = 0
        for digit in whole { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }
        var scale: Int64 = 100
        value *= 1000
        for digit in fraction {
            value += Int64(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value
    }

    // MARK: - Settings

    private static func readSettings(_ node: StoreKitJSONNode) throws(StoreKitConfigurationError) -> StoreKitConfiguration.Settings {
        func flag(_ key: String) throws(StoreKitConfigurationError) -> Bool {
            try node.member(key)?.bool() ?? false
        }
        var settings = StoreKitConfiguration.Settings()
        settings.askToBuyEnabled = try flag("_askToBuyEnabled")
        settings.billingGracePeriodEnabled = try flag("_billingGracePeriodEnabled")
        let renewalIssues = try flag("_renewalBillingIssuesEnabled")
        let billingIssues = try flag("_billingIssuesEnabled")
        settings.billingIssuesEnabled = renewalIssues || billingIssues
        settings.failTransactionsEnabled = try flag("_failTransactionsEnabled")
        settings.interruptedPurchasesEnabled = try flag("_interruptedPurchasesEnabled")
        settings.disableDialogs = try flag("_disableDialogs")
        if let locale = try node.member("_locale")?.string() { settings.locale = locale }
        if let storefront = try node.member("_storefront")?.string() { settings.storefront = storefront }
        if let rateNode = try node.member("_timeRate") {
            let raw = try rateNode.int()
            guard let rate = TimeRate(rawValue: raw) else {
                throw rateNode.invalid("unknown time rate \(raw); Xcode's rates are \(TimeRate.allCases.map { String($0.rawValue) }.joined(separator: ", "))")
            }
            settings.timeRate = rate
        }
        settings.storeKitErrors = try (node.member("_storeKitErrors")?.array() ?? []).map { item throws(StoreKitConfigurationError) in
            let item = try item.object()
            var current: String?
            if let currentNode = try item.member("current") {
                current = rawJSON(currentNode.value)
            }
            return StoreKitConfiguration.ErrorSetting(
                api: try item.required("name").string(),
                enabled: try item.member("enabled")?.bool() ?? false,
                rawCurrent: current)
        }
        return settings
    }

    private static func rawJSON(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else {
            return String(describing: value)
        }
        return String(decoding: data, as: UTF8.self)
    }
}
