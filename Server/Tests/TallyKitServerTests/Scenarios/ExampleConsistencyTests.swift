import AstrologyReports
import Foundation
import PhotoCredits
import Testing

/// What a newcomer copies must name products that exist: every product id that the README, the
/// docs, the DocC catalogs or the example apps name is sold by both the catalog
/// (`Examples/tally.json`, what the server and the on-device ledger read) and the StoreKit
/// configuration (`Examples/Tally.storekit`, what Xcode's StoreKit testing sells), and the two
/// sell the same products. The photo app's bundle id is the catalog's, which the server checks.
@Suite struct ExampleConsistencyTests {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The product ids of the catalog file.
    static func catalogProducts() throws -> Set<String> {
        let json = try JSONSerialization.jsonObject(with: Data(try text("Examples/tally.json").utf8)) as? [String: Any]
        let products = try #require(json?["products"] as? [[String: Any]])
        return Set(products.compactMap { $0["product_id"] as? String })
    }

    /// The catalog's bundle id.
    static func catalogBundleID() throws -> String {
        let json = try JSONSerialization.jsonObject(with: Data(try text("Examples/tally.json").utf8)) as? [String: Any]
        return try #require((json?["app"] as? [String: Any])?["bundle_id"] as? String)
    }

    /// The product ids of the StoreKit configuration: products, non-renewing subscriptions and
    /// every subscription of every group.
    static func storeKitProducts() throws -> Set<String> {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try text("Examples/Tally.storekit").utf8)) as? [String: Any])
        var found: Set<String> = []
        for key in ["products", "nonRenewingSubscriptions"] {
            for product in json[key] as? [[String: Any]] ?? [] { if let id = product["productID"] as? String { found.insert(id) } }
        }
        for group in json["subscriptionGroups"] as? [[String: Any]] ?? [] {
            for product in group["subscriptions"] as? [[String: Any]] ?? [] { if let id = product["productID"] as? String { found.insert(id) } }
        }
        return found
    }

    /// The `PRODUCT_BUNDLE_IDENTIFIER`s of an example's Xcode project spec.
    static func bundleIDs(ofProject path: String) throws -> Set<String> {
        let lines = try text(path).split(separator: "\n")
        return Set(
            lines.compactMap { line -> String? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == "PRODUCT_BUNDLE_IDENTIFIER" else { return nil }
                return parts[1].trimmingCharacters(in: .whitespaces)
            })
    }

    /// The files a newcomer reads or copies: the README, docs/, the DocC catalogs, the `///`
    /// comments of the client's sources, and the example apps.
    static func documentedFiles() throws -> [String] {
        let manager = FileManager.default
        var files = ["README.md"]
        for folder in ["docs", "Sources", "Examples"] {
            guard let walker = manager.enumerator(atPath: root.appendingPathComponent(folder).path) else { continue }
            while let relative = walker.nextObject() as? String {
                if relative.hasSuffix(".md") || relative.hasSuffix(".swift") { files.append("\(folder)/\(relative)") }
            }
        }
        return files
    }

    /// Every `com.tally.…` and `com.zorya.…` identifier a file names, with the line it is on.
    /// In Swift sources under `Sources/`, only documentation comments count.
    static func identifiers(in path: String) throws -> [(id: String, line: Int)] {
        let pattern = try Regex(#"com\.(?:tally|zorya)(?:\.[A-Za-z0-9_-]+)+"#)
        var found: [(String, Int)] = []
        for (number, line) in try text(path).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if path.hasPrefix("Sources/"), path.hasSuffix(".swift"), !line.trimmingCharacters(in: .whitespaces).hasPrefix("///") { continue }
            for match in line.matches(of: pattern) { found.append((String(line[match.range]), number + 1)) }
        }
        return found
    }

    @Test func theCatalogAndTheStoreKitConfigurationSellTheSameProducts() throws {
        let catalog = try Self.catalogProducts()
        let storeKit = try Self.storeKitProducts()
        #expect(!catalog.isEmpty)
        #expect(catalog.subtracting(storeKit).sorted() == [], "in tally.json, not in Tally.storekit")
        #expect(storeKit.subtracting(catalog).sorted() == [], "in Tally.storekit, not in tally.json")
    }

    @MainActor @Test func everyProductTheExamplesSellExistsInBoth() throws {
        let catalog = try Self.catalogProducts()
        let storeKit = try Self.storeKitProducts()
        let named = ReportShelf.Kind.allCases.map(\.productID) + PhotoStudio.packs
        for id in named {
            #expect(catalog.contains(id), "\(id) is sold by an example but not in tally.json")
            #expect(storeKit.contains(id), "\(id) is sold by an example but not in Tally.storekit")
        }
    }

    @Test func everyProductIdTheDocsAndExamplesNameExistsInBoth() throws {
        let products = try Self.catalogProducts().intersection(try Self.storeKitProducts())
        let bundleIDs =
            try [Self.catalogBundleID()]
            + Self.bundleIDs(ofProject: "Examples/AstrologyReports/project.yml")
            + Self.bundleIDs(ofProject: "Examples/PhotoCredits/project.yml")
        var unknown: [String] = []
        var checked = 0
        for file in try Self.documentedFiles() {
            for (id, line) in try Self.identifiers(in: file) {
                checked += 1
                // A product id, or the prefix a product id is made from (`com.tally.zorya.report.\(kind)`).
                let isPrefix = products.contains { $0.hasPrefix(id + ".") }
                if !products.contains(id), !bundleIDs.contains(id), !isPrefix { unknown.append("\(file):\(line): \(id)") }
            }
        }
        #expect(checked > 10, "the scan found the README's and the examples' product ids")
        #expect(unknown == [], "named in the docs or the examples, but sold by neither tally.json nor Tally.storekit")
    }

    @MainActor @Test func theReportsAppCarriesTheCatalogsAppAppleID() throws {
        let json = try JSONSerialization.jsonObject(with: Data(try Self.text("Examples/tally.json").utf8)) as? [String: Any]
        let app = try #require(json?["app"] as? [String: Any])
        #expect((app["app_apple_id"] as? NSNumber)?.int64Value == ReportShelf.appAppleID)
    }

    @Test func thePhotoAppIsTheAppTheCatalogNames() throws {
        // The server refuses a purchase whose bundle id is not the catalog's.
        #expect(try Self.bundleIDs(ofProject: "Examples/PhotoCredits/project.yml") == [try Self.catalogBundleID()])
        let reports = try Self.bundleIDs(ofProject: "Examples/AstrologyReports/project.yml")
        #expect(reports.count == 1)
    }

    @Test func thePhotoAppsServerComesFromItsInfoPlist() {
        #expect(PhotoServer.url(info: ["TallyServerURL": "https://credits.example.com"]).absoluteString == "https://credits.example.com")
        #expect(PhotoServer.url(info: [:]).absoluteString == "http://localhost:8080", "a tally serve --dev on this Mac")
        #expect(PhotoServer.url(info: ["TallyServerURL": "$(TALLY_SERVER_URL)"]).absoluteString == "http://localhost:8080")
        #expect(PhotoServer.url(info: ["TallyServerURL": "ftp://x"]).absoluteString == "http://localhost:8080")
    }
}
