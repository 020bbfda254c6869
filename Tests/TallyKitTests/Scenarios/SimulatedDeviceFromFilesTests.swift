import Foundation
import TallyCore
import TallyKit
import TallyKitTesting
import TallyTestSupport
import Testing

/// A first test of a purchase flow, set up from the app's `.storekit` file and `tally.json`
/// alone (the README's "your first test"), and reading one balance.
@Suite(.timeLimit(.minutes(2))) struct SimulatedDeviceFromFilesTests {
    let storeKitFile = Repository.root.appendingPathComponent("Examples/Tally.storekit")
    let catalogFile = Repository.root.appendingPathComponent("Examples/tally.json")

    /// The README's snippet, line for line.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theReadmesFirstTestBuysAReportAndSeesItsCredit() async throws {
        let device = try SimulatedDevice(storeKitFile: storeKitFile, catalogFile: catalogFile)
        let manager = try await device.launch()
        _ = try await manager.purchase("com.tally.zorya.report.career")
        #expect(try await manager.balance(of: "report.career").available == 1)
    }

    /// The snippet in the README is the test above, so that what a newcomer copies runs.
    @Test func theReadmesSnippetIsTheTestAbove() throws {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "### Your first test"))
        let after = readme[section.upperBound...]
        let open = try #require(after.range(of: "@Test func"))
        let close = try #require(after[open.lowerBound...].range(of: "\n}\n"))
        let snippet = after[open.lowerBound..<close.upperBound].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let lines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.firstIndex(of: snippet[0]))
        #expect(Array(lines[start..<min(lines.count, start + snippet.count)]) == snippet)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func oneBalanceFollowsPurchasesAndUseAndIsZeroForACurrencyNeverBought() async throws {
        let device = try SimulatedDevice(storeKitFile: storeKitFile, catalogFile: catalogFile)
        let manager = try await device.launch(productIDs: ["com.tally.photo.credits.50"])
        let none = try await manager.balance(of: "credits")
        #expect([none.available, none.held, none.spendable] == [0, 0, 0])

        _ = try await manager.purchase("com.tally.photo.credits.50")
        #expect(try await manager.balance(of: "credits").spendable == 50)
        try await manager.spend("credits", amount: 3, reference: "photo-1", idempotencyKey: "photo-1")
        #expect(try await manager.balance(of: "credits").available == 47)
        #expect(try await manager.balance(of: "credits", policy: .fetchCurrent).available == 47)
        #expect(try await manager.balance(of: "seconds").available == 0)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func theStoreSignsForTheAppTheCatalogNamesFromAFixedStart() async throws {
        let device = try SimulatedDevice(storeKitFile: storeKitFile, catalogFile: catalogFile)
        #expect(device.appStore.configuration.bundleID == "com.tally.example")
        #expect(device.appStore.configuration.appAppleID == 6_450_000_001)
        #expect(device.now == SimulatedDevice.defaultStart)
        #expect(device.catalog?.product("com.tally.zorya.report.career")?.grants == [Amount(currency: "report.career", amount: 1)])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aCatalogThatCannotBeReadIsAClearError() async throws {
        let missing = Repository.root.appendingPathComponent("Examples/no-such-catalog.json")
        let error = try #require(throws: TallyError.self) { try SimulatedDevice(storeKitFile: storeKitFile, catalogFile: missing) }
        #expect(error.code == .invalidRequest)

        // A phone made without a catalog cannot launch with a ledger on the device.
        let withFiles = try SimulatedDevice(storeKitFile: storeKitFile, catalogFile: catalogFile)
        let bare = SimulatedDevice(appStore: withFiles.appStore, time: withFiles.time)
        let noCatalog = await #expect(throws: TallyError.self) { _ = try await bare.launch() }
        #expect(noCatalog?.code == .invalidRequest)
    }
}
