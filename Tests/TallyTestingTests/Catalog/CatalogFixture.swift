import Foundation
import TallyTestSupport
import TallyTesting
import Testing

/// The suites of the Catalog folder, grouped so that `swift test --filter Catalog` runs them all.
@Suite enum CatalogTests {}

/// A small valid StoreKit configuration with every section, and a way to change one value
/// at a path, so each malformed-input test breaks exactly one thing.
enum CatalogFixture {
    static func document() -> [String: Any] {
        [
            "identifier": "FIXTURE1",
            "nonRenewingSubscriptions": [
                [
                    "displayPrice": "14.99", "familyShareable": false, "internalID": "N1",
                    "localizations": [["description": "A season", "displayName": "Season", "locale": "en_US"]],
                    "productID": "nr.season", "referenceName": "Season", "type": "NonRenewingSubscription",
                ] as [String: Any]
            ],
            "products": [
                [
                    "displayPrice": "0.99", "familyShareable": false, "internalID": "C1",
                    "localizations": [["description": "One", "displayName": "One", "locale": "en_US"]],
                    "productID": "c.one", "referenceName": "One", "type": "Consumable",
                ] as [String: Any],
                [
                    "displayPrice": "9.99", "familyShareable": true, "internalID": "C2",
                    "localizations": [["description": "Two", "displayName": "Two", "locale": "en_US"]],
                    "productID": "nc.two", "referenceName": "Two", "type": "NonConsumable",
                ] as [String: Any],
            ],
            "settings": [
                "_askToBuyEnabled": false, "_locale": "en_US", "_storefront": "USA", "_timeRate": 0, "_storeKitErrors": [Any](),
            ] as [String: Any],
            "subscriptionGroups": [
                [
                    "id": "G1", "name": "Group One", "localizations": [Any](),
                    "subscriptions": [
                        [
                            "adHocOffers": [
                                [
                                    "displayPrice": "2.49", "numberOfPeriods": 3, "offerID": "promo",
                                    "paymentMode": "payAsYouGo", "subscriptionPeriod": "P1M",
                                ] as [String: Any]
                            ],
                            "codeOffers": [Any](), "winbackOffers": [Any](),
                            "displayPrice": "4.99", "familyShareable": false, "groupNumber": 2,
                            "introductoryOffer": ["numberOfPeriods": 1, "paymentMode": "free", "subscriptionPeriod": "P1W"] as [String: Any],
                            "localizations": [["description": "Monthly", "displayName": "Monthly", "locale": "en_US"]],
                            "productID": "s.monthly", "recurringSubscriptionPeriod": "P1M", "referenceName": "Monthly",
                            "subscriptionGroupID": "G1", "type": "RecurringSubscription",
                        ] as [String: Any],
                        [
                            "adHocOffers": [Any](), "codeOffers": [Any](), "winbackOffers": [Any](),
                            "displayPrice": "39.99", "familyShareable": false, "groupNumber": 1,
                            "localizations": [["description": "Yearly", "displayName": "Yearly", "locale": "en_US"]],
                            "productID": "s.yearly", "recurringSubscriptionPeriod": "P1Y", "referenceName": "Yearly",
                            "subscriptionGroupID": "G1", "type": "RecurringSubscription",
                        ] as [String: Any],
                    ],
                ] as [String: Any],
                ["id": "G2", "name": "Group Two", "localizations": [Any](), "subscriptions": [Any]()] as [String: Any],
            ],
            "version": ["major": 4, "minor": 0],
        ]
    }

    static func data(_ document: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .fragmentsAllowed])
    }

    /// The fixture with the value at `path` (`products[1].productID`) replaced, or removed when `value` is nil.
    static func patched(_ path: String, _ value: Any?) throws -> Data {
        var root: Any = document()
        try set(&root, components(path)[...], value)
        return try data(root)
    }

    /// The fixture with `key` added to the object at `path` (`""` for the root).
    static func adding(_ key: String, _ value: Any, at paths: [String]) throws -> Data {
        var root: Any = document()
        for path in paths {
            try set(&root, (components(path) + [.key(key)])[...], value)
        }
        return try data(root)
    }

    static func parse(_ path: String, _ value: Any?) throws -> StoreKitConfiguration {
        try StoreKitConfiguration(json: patched(path, value))
    }

    /// The error thrown for the fixture with one value changed.
    static func error(_ path: String, _ value: Any?) throws -> StoreKitConfigurationError? {
        error(of: try patched(path, value))
    }

    static func error(of data: Data) -> StoreKitConfigurationError? {
        do {
            _ = try StoreKitConfiguration(json: data)
            return nil
        } catch {
            return error
        }
    }

    /// Examples/Tally.storekit in this repository.
    static var exampleURL: URL { Repository.root.appendingPathComponent("Examples/Tally.storekit") }

    /// Xcode's own file, read in place beside the vectors: ../shared/storekit/.
    static var revenueCatURL: URL? {
        guard let root = Vectors.root else { return nil }
        let url = root.deletingLastPathComponent().appendingPathComponent("storekit/revenuecat-UnitTestsConfiguration.storekit")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    // MARK: - Paths

    enum Component { case key(String), index(Int) }

    struct PatchError: Error, CustomStringConvertible {
        let description: String
    }

    static func components(_ path: String) throws -> [Component] {
        var result: [Component] = []
        for part in path.split(separator: ".") {
            var rest = Substring(part)
            if let open = rest.firstIndex(of: "[") {
                if open > rest.startIndex { result.append(.key(String(rest[..<open]))) }
                rest = rest[open...]
                while let close = rest.firstIndex(of: "]") {
                    guard let index = Int(rest[rest.index(after: rest.startIndex)..<close]) else { throw PatchError(description: "bad path \(path)") }
                    result.append(.index(index))
                    rest = rest[rest.index(after: close)...]
                }
            } else {
                result.append(.key(String(rest)))
            }
        }
        return result
    }

    private static func set(_ node: inout Any, _ path: ArraySlice<Component>, _ value: Any?) throws {
        guard let first = path.first else {
            if let value { node = value }
            return
        }
        switch first {
        case .key(let key):
            guard var object = node as? [String: Any] else { throw PatchError(description: "not an object at \(key)") }
            if path.count == 1 {
                object[key] = value
            } else {
                guard var child = object[key] else { throw PatchError(description: "no \(key)") }
                try set(&child, path.dropFirst(), value)
                object[key] = child
            }
            node = object
        case .index(let index):
            guard var array = node as? [Any], array.indices.contains(index) else { throw PatchError(description: "no [\(index)]") }
            if path.count == 1 {
                if let value { array[index] = value } else { array.remove(at: index) }
            } else {
                var child = array[index]
                try set(&child, path.dropFirst(), value)
                array[index] = child
            }
            node = array
        }
    }
}
