import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing

/// Identifiers in signed data must have the App Store's shapes: an empty or malformed one is
/// refused even under a genuine signature, since storage keys on it.
@Suite struct IdentifierTests {
    let ca: TestCertificateAuthority
    let verifier: SignedDataVerifier

    init() throws {
        ca = try Fixtures.authority()
        verifier = Fixtures.verifier(roots: [ca.root], bundleID: .any)
    }

    static let badTransactionIDs = ["", " ", "12a4", "-1", "1.5", "1e9", "１２３", "123456789012345678901", "12 34", "0x10", "1\n"]

    @Test(arguments: badTransactionIDs)
    func aTransactionIDThatIsNotDigitsIsRefused(id: String) async throws {
        for field in [\TransactionPayload.transactionID, \.originalTransactionID] {
            var payload = Fixtures.transaction()
            payload[keyPath: field] = id
            let failure = try #require(await verifier.verifyTransaction(try ca.sign(payload)).failure)
            #expect(failure.code == .invalidIdentifier)
            #expect(failure.reason.contains(field == \.transactionID ? "transactionId" : "originalTransactionId"), "\(failure.reason)")
        }
    }

    @Test(arguments: ["0", "7", "20000904312745", "2000001024998954", "18446744073709551615", "00000000000000000000"])
    func decimalTransactionIDsAreAccepted(id: String) async throws {
        var payload = Fixtures.transaction(id: id)
        payload.originalTransactionID = id
        #expect(await verifier.verifyTransaction(try ca.sign(payload)).value != nil)
    }

    static let badNames = ["", "with space", "com.example.é", "tab\there", "semi;colon", "slash/name", "quote\"", String(repeating: "a", count: 256), "\u{0}"]

    @Test(arguments: badNames)
    func aProductOrBundleIDWithOtherCharactersIsRefused(name: String) async throws {
        var product = Fixtures.transaction()
        product.productID = name
        #expect(await verifier.verifyTransaction(try ca.sign(product)).failure?.code == .invalidIdentifier)
        var bundle = Fixtures.transaction()
        bundle.bundleID = name
        #expect(await verifier.verifyTransaction(try ca.sign(bundle)).failure?.code == .invalidIdentifier)
    }

    @Test(arguments: [
        "pass.premium", "bz_0999_gold", "com.revenuecat.monthly_4.99.1_week_intro", "com.loki-project.loki-messenger",
        "co.ringalarm.swtich.quarterly2", "A", String(repeating: "a", count: 255),
    ])
    func productAndBundleIDsAsStoresWriteThemAreAccepted(name: String) async throws {
        var payload = Fixtures.transaction()
        payload.productID = name
        payload.bundleID = name
        #expect(await verifier.verifyTransaction(try ca.sign(payload)).value != nil)
    }

    @Test func absentIdentifiersAreLeftToTheCaller() async throws {
        // Apple's own test payloads carry no ids; whoever needs one (the server, to credit) requires it.
        var payload = Fixtures.transaction()
        payload.transactionID = nil
        payload.originalTransactionID = nil
        payload.productID = nil
        #expect(await verifier.verifyTransaction(try ca.sign(payload)).value != nil)
    }

    @Test func renewalInfoIdentifiersAreChecked() async throws {
        var renewal = RenewalInfoPayload()
        renewal.environment = .sandbox
        renewal.signedDate = Fixtures.mintDate.addingTimeInterval(86_400)
        renewal.originalTransactionID = "1000000000000001"
        renewal.productID = "com.example.monthly"
        #expect(await verifier.verifyRenewalInfo(try ca.sign(renewal)).value != nil)
        var empty = renewal
        empty.originalTransactionID = ""
        #expect(await verifier.verifyRenewalInfo(try ca.sign(empty)).failure?.code == .invalidIdentifier)
        var spaced = renewal
        spaced.productID = "com.example monthly"
        #expect(await verifier.verifyRenewalInfo(try ca.sign(spaced)).failure?.code == .invalidIdentifier)
    }

    @Test(arguments: [
        ("9ad56bd2-0bc6-42e0-af24-fd996d87a1e6", true), ("9AD56BD2-0BC6-42E0-AF24-FD996D87A1E6", true),
        ("", false), ("9ad56bd2", false), ("9ad56bd2-0bc6-42e0-af24-fd996d87a1e", false),
        ("9ad56bd20bc642e0af24fd996d87a1e6", false), ("9ad56bd2-0bc6-42e0-af24-fd996d87a1eg", false),
    ])
    func aNotificationUUIDMustBeAUUID(uuid: String, accepted: Bool) async throws {
        var notification = NotificationPayload()
        notification.notificationType = .test
        notification.notificationUUID = uuid
        notification.signedDate = Fixtures.mintDate.addingTimeInterval(86_400)
        var data = NotificationData()
        data.bundleID = "com.example"
        data.appAppleID = 1234
        data.environment = .sandbox
        notification.data = data
        let result = await verifier.verifyNotification(try ca.sign(notification))
        #expect((result.failure == nil) == accepted, "\(String(describing: result.failure))")
        if !accepted { #expect(result.failure?.code == .invalidIdentifier) }
    }

    @Test func anAppTransactionsBundleIDIsChecked() async throws {
        var app = AppTransactionPayload()
        app.receiptType = .sandbox
        app.appAppleID = 1234
        app.receiptCreationDate = Fixtures.mintDate.addingTimeInterval(86_400)
        app.bundleID = "com.example"
        #expect(await verifier.verifyAppTransaction(try ca.sign(app)).value != nil)
        app.bundleID = ""
        #expect(await verifier.verifyAppTransaction(try ca.sign(app)).failure?.code == .invalidIdentifier)
    }

    @Test func aNotificationCarryingAnEmptyTransactionIDFailsWithItsCode() async throws {
        var transaction = Fixtures.transaction()
        transaction.transactionID = ""
        var notification = NotificationPayload()
        notification.notificationType = .oneTimeCharge
        notification.notificationUUID = "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6"
        notification.signedDate = Fixtures.mintDate.addingTimeInterval(86_400)
        var data = NotificationData()
        data.bundleID = "com.example"
        data.appAppleID = 1234
        data.environment = .sandbox
        data.signedTransactionInfo = try ca.sign(transaction)
        notification.data = data
        let failure = await verifier.verifyNotification(try ca.sign(notification), includingSignedData: true).failure
        #expect(failure?.code == .invalidIdentifier)
        #expect(failure?.reason.hasPrefix("signedTransactionInfo: transactionId is empty") == true, "\(String(describing: failure))")
    }

    @Test func everyCodeIsDocumentedInCheckOrder() throws {
        let document = try String(contentsOf: Repository.root.appendingPathComponent("docs/verification-errors.md"), encoding: .utf8)
        // The rows of the table under "## Codes", up to the next section.
        let codes = document.components(separatedBy: "\n## Codes\n").last?.components(separatedBy: "\n## ").first ?? ""
        let rows = codes.split(separator: "\n").filter { $0.hasPrefix("| `") }.compactMap { row in
            row.dropFirst(3).split(separator: "`").first.map(String.init)
        }
        // Codes only receipts have are documented in the receipts' own table.
        let receiptOnly: [VerificationFailure.Code] = [.malformedReceipt, .wrongAppVersion, .deviceHashMismatch]
        let jwsCodes = VerificationFailure.Code.all.filter { !receiptOnly.contains($0) }
        #expect(rows == jwsCodes.map(\.rawValue), "\(rows)")
        #expect(jwsCodes.last == .invalidIdentifier)
        let receipts = document.components(separatedBy: "\n## App receipts").last?.components(separatedBy: "\n## ").first ?? ""
        for code in receiptOnly { #expect(receipts.contains("| `\(code.rawValue)` |"), "\(code) is not in the receipts' table") }
        let code = VerificationFailure.Code.invalidIdentifier
        #expect(code.appleSwiftStatus == "VALID" && code.applePythonStatus == "VALID")
    }
}
