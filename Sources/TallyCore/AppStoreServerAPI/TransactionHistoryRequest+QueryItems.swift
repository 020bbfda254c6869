public import Foundation

extension TransactionHistoryRequest {
    /// Apple's query parameter names.
    enum Parameter {
        static let revision = "revision"
        static let startDate = "startDate"
        static let endDate = "endDate"
        static let productID = "productId"
        static let productType = "productType"
        static let sort = "sort"
        static let subscriptionGroupIdentifier = "subscriptionGroupIdentifier"
        static let inAppOwnershipType = "inAppOwnershipType"
        static let revoked = "revoked"
    }

    /// The request as query items, in the order Apple's libraries send them: dates as epoch
    /// milliseconds, repeated filters as repeated items, `revoked` as `true` / `false`.
    /// - Parameter revision: The `revision` token of the previous page, or `nil` for the first.
    /// - Returns: The items to put in the URL; empty filters are left out.
    public func queryItems(revision: String? = nil) -> [URLQueryItem] {
        var items: [URLQueryItem] = []
        func add(_ name: String, _ value: String?) {
            if let value { items.append(URLQueryItem(name: name, value: value)) }
        }
        add(Parameter.revision, revision)
        add(Parameter.startDate, startDate.map(Self.milliseconds))
        add(Parameter.endDate, endDate.map(Self.milliseconds))
        for id in productIds ?? [] { add(Parameter.productID, id) }
        for type in productTypes ?? [] { add(Parameter.productType, type.rawValue) }
        add(Parameter.sort, sort?.rawValue)
        for group in subscriptionGroupIdentifiers ?? [] { add(Parameter.subscriptionGroupIdentifier, group) }
        add(Parameter.inAppOwnershipType, inAppOwnershipType?.rawValue)
        add(Parameter.revoked, revoked.map { $0 ? "true" : "false" })
        return items
    }

    /// Reads a request from query items, refusing what the App Store refuses.
    ///
    /// Unknown parameters and `revision` (see ``revision(in:)``) are ignored. Of a parameter
    /// that is not repeatable, the first item counts. `revoked` is read case-insensitively,
    /// as Apple's Python library sends `True`.
    /// - Parameter queryItems: The URL's query items.
    /// - Throws: ``APIRequestError`` with ``APIErrorCode/invalidStartDate``,
    ///   ``APIErrorCode/invalidEndDate``, ``APIErrorCode/startDateAfterEndDate``,
    ///   ``APIErrorCode/invalidProductType``, ``APIErrorCode/invalidSort``,
    ///   ``APIErrorCode/invalidInAppOwnershipType`` or ``APIErrorCode/invalidRevoked``.
    public init(queryItems: [URLQueryItem]) throws(APIRequestError) {
        self.init()
        func all(_ name: String) -> [String] { queryItems.filter { $0.name == name }.map { $0.value ?? "" } }
        func first(_ name: String) -> String? { all(name).first }

        if let value = first(Parameter.startDate) {
            guard let date = Self.date(value) else { throw APIRequestError(.invalidStartDate, "startDate \(value) is not epoch milliseconds") }
            startDate = date
        }
        if let value = first(Parameter.endDate) {
            guard let date = Self.date(value) else { throw APIRequestError(.invalidEndDate, "endDate \(value) is not epoch milliseconds") }
            endDate = date
        }
        if let startDate, let endDate, startDate >= endDate {
            throw APIRequestError(.startDateAfterEndDate, "startDate is not before endDate")
        }
        let ids = all(Parameter.productID)
        if !ids.isEmpty { productIds = ids }
        let types = try all(Parameter.productType).map { value throws(APIRequestError) in
            let type = ProductType(rawValue: value)
            guard ProductType.known.contains(type) else { throw APIRequestError(.invalidProductType, "productType \(value) is unknown") }
            return type
        }
        if !types.isEmpty { productTypes = types }
        if let value = first(Parameter.sort) {
            guard Order.known.contains(Order(rawValue: value)) else { throw APIRequestError(.invalidSort, "sort \(value) is unknown") }
            sort = Order(rawValue: value)
        }
        let groups = all(Parameter.subscriptionGroupIdentifier)
        if !groups.isEmpty { subscriptionGroupIdentifiers = groups }
        if let value = first(Parameter.inAppOwnershipType) {
            let type = InAppOwnershipType(rawValue: value)
            guard type == .purchased || type == .familyShared else {
                throw APIRequestError(.invalidInAppOwnershipType, "inAppOwnershipType \(value) is unknown")
            }
            inAppOwnershipType = type
        }
        if let value = first(Parameter.revoked) {
            switch value.lowercased() {
            case "true": revoked = true
            case "false": revoked = false
            default: throw APIRequestError(.invalidRevoked, "revoked \(value) is not true or false")
            }
        }
    }

    /// The `revision` token among query items, or `nil` for a first page.
    /// - Parameter queryItems: The URL's query items.
    /// - Returns: The first `revision` value.
    public static func revision(in queryItems: [URLQueryItem]) -> String? {
        queryItems.first { $0.name == Parameter.revision }?.value
    }

    static func milliseconds(_ date: Date) -> String {
        String(EpochMilliseconds.of(date))
    }

    static func date(_ text: String) -> Date? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let milliseconds = Int64(text)
        else { return nil }
        return EpochMilliseconds.date(milliseconds)
    }
}
