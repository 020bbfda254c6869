// The app's own set-up, buying through Xcode's StoreKit testing (Examples/Tally.storekit) in the
// iOS Simulator: Xcode and a macOS runner only (.github/workflows/apple-platforms.yml).
import AstrologyReports
import Foundation
import StoreKit
import StoreKitTest
import TallyKit
import XCTest

@MainActor
final class StoreKitTestingTests: XCTestCase {
    private var session: SKTestSession!

    override func setUp() async throws {
        session = try SKTestSession(configurationFileNamed: "Tally")
        session.disableDialogs = true
        session.clearTransactions()
    }

    /// The certificate this Mac's Xcode signs StoreKit testing data with, read from a purchase
    /// made for the purpose: the test trusts it explicitly, as a developer trusts the one they
    /// saved from Xcode. Nothing trusts a lone certificate by itself.
    private func xcodeCertificate() async throws -> Data {
        let products = try await Product.products(for: [ReportShelf.Kind.wellness.productID])
        let product = try XCTUnwrap(products.first)
        guard case .success(let result) = try await product.purchase() else { throw XCTSkip("the purchase did not complete") }
        let header = try XCTUnwrap(result.jwsRepresentation.split(separator: ".").first.map(String.init))
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(Data(base64Encoded: base64))) as? [String: Any])
        let chain = try XCTUnwrap(json["x5c"] as? [String])
        XCTAssertEqual(chain.count, 1, "Xcode signs with one self-signed certificate")
        if case .verified(let transaction) = result { await transaction.finish() }
        return try XCTUnwrap(Data(base64Encoded: chain[0]))
    }

    func testABoughtReportIsCreditedOnceWrittenAndItsCreditSpent() async throws {
        let certificate = try await xcodeCertificate()
        let database = try await LocalDatabase.standard(named: "tests-\(UUID().uuidString)")
        let shelf = try await ReportShelf.launch(
            store: DeviceStore.automatic(), language: .english, bundle: Bundle(for: Self.self), database: database,
            xcodeTestingCertificate: certificate
        ) { kind, _ in "Your \(kind.rawValue) reading" }

        guard case .paywall = await shelf.open(.career, for: "me") else { return XCTFail("no credit yet: the paywall") }
        let outcome = try await shelf.manager.purchase(ReportShelf.Kind.career.productID)
        guard case .purchased = outcome else { return XCTFail("expected the purchase to be credited, got \(outcome)") }
        let bought = try await shelf.manager.balance(of: ReportShelf.Kind.career.currency)
        XCTAssertEqual(bought.available, 1)

        guard case .report(let report) = await shelf.open(.career, for: "me") else { return XCTFail("the credit writes the report") }
        XCTAssertEqual(report.text, "Your career reading")
        let spent = try await shelf.manager.balance(of: ReportShelf.Kind.career.currency)
        XCTAssertEqual(spent.available, 0)
    }

    func testWithoutXcodesCertificateAPurchaseIsRefusedAndLeftUnfinished() async throws {
        let database = try await LocalDatabase.standard(named: "tests-\(UUID().uuidString)")
        let shelf = try await ReportShelf.launch(
            store: DeviceStore.automatic(), language: .english, bundle: Bundle(for: Self.self), database: database
        ) { kind, _ in "Your \(kind.rawValue) reading" }
        do {
            _ = try await shelf.manager.purchase(ReportShelf.Kind.personality.productID)
            XCTFail("Xcode's data is not trusted without its certificate")
        } catch let error as TallyError {
            XCTAssertEqual(error.code, .verificationFailed)
        }
        let refused = try await shelf.manager.balance(of: ReportShelf.Kind.personality.currency)
        XCTAssertEqual(refused.available, 0)
    }
}
