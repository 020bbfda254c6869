import Crypto
import Foundation
import TallyCore
import TallyTesting
import TallyVerify
import Testing
import X509

/// Bundle identifier, App Apple ID and environment, for each kind and each notification shape.
@Suite struct IdentityClaimsTests {
    let ca: TestCertificateAuthority
    init() throws { ca = try Fixtures.authority() }

    func notification(_ change: (inout NotificationPayload) -> Void) -> NotificationPayload {
        var payload = NotificationPayload()
        payload.notificationType = .test
        payload.notificationUUID = UUID().uuidString.lowercased()
        payload.signedDate = Fixtures.mintDate.addingTimeInterval(86_400)
        change(&payload)
        return payload
    }

    @Test func identityComesFromDataSummaryTokenOrAppData() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root], environments: [.sandbox])
        var data = NotificationData()
        data.bundleID = "com.example"
        data.environment = .sandbox
        var summary = NotificationSummary()
        summary.bundleID = "com.example"
        summary.environment = .sandbox
        var token = ExternalPurchaseToken()
        token.bundleID = "com.example"
        token.externalPurchaseID = "SANDBOX_1"
        var appData = AppData()
        appData.bundleID = "com.example"
        appData.environment = .sandbox
        for payload in [
            notification { $0.data = data }, notification { $0.summary = summary },
            notification { $0.externalPurchaseToken = token }, notification { $0.appData = appData },
        ] {
            #expect(await verifier.verifyNotification(try ca.sign(payload)).value != nil)
        }
        token.externalPurchaseID = "1"  // a production token
        token.appAppleID = 1234
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.externalPurchaseToken = token })).failure?.code == .wrongEnvironment)
        appData.bundleID = "com.other"
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.appData = appData })).failure?.code == .wrongBundleID)
    }

    @Test func notificationWithNoIdentityIsForNoApp() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root])
        #expect(await verifier.verifyNotification(try ca.sign(notification { _ in })).failure?.code == .wrongBundleID)
    }

    @Test func productionDataMustNameTheApp() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root], environments: [.production, .sandbox])
        var data = NotificationData()
        data.bundleID = "com.example"
        data.environment = .production
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.data = data })).failure?.code == .wrongAppAppleID)
        data.appAppleID = 1234
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.data = data })).value != nil)
        data.appAppleID = 99
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.data = data })).failure?.code == .wrongAppAppleID)
    }

    /// Leaving the environment out of signed data never turns the App Apple ID check off.
    @Test func dataWithoutAnEnvironmentMustNameTheAppWhenProductionIsServed() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root], environments: [.production]) { $0.acceptsMissingEnvironment = true }
        var data = NotificationData()
        data.bundleID = "com.example"
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.data = data })).failure?.code == .wrongAppAppleID)
        data.appAppleID = 1234
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.data = data })).value != nil)
        var app = AppTransactionPayload()
        app.bundleID = "com.example"
        app.receiptCreationDate = Fixtures.mintDate.addingTimeInterval(86_400)
        #expect(await verifier.verifyAppTransaction(try ca.sign(app)).failure?.code == .wrongAppAppleID)
    }

    @Test func sandboxDataWithoutAnAppAppleIDPasses() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root], environments: [.production, .sandbox])
        var data = NotificationData()
        data.bundleID = "com.example"
        data.environment = .sandbox
        #expect(await verifier.verifyNotification(try ca.sign(notification { $0.data = data })).value != nil)
    }

    @Test func anyMeansUnchecked() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root], bundleID: .any, appAppleID: .any, environments: [.sandbox])
        var payload = Fixtures.transaction()
        payload.bundleID = "com.someone.else"
        #expect(await verifier.verifyTransaction(try ca.sign(payload)).value != nil)
    }

    @Test func renewalInfoHasNoBundleToCheck() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root])
        var renewal = RenewalInfoPayload()
        renewal.environment = .sandbox
        renewal.signedDate = Fixtures.mintDate.addingTimeInterval(86_400)
        #expect(await verifier.verifyRenewalInfo(try ca.sign(renewal)).value != nil)
        renewal.environment = .production
        #expect(await verifier.verifyRenewalInfo(try ca.sign(renewal)).failure?.code == .wrongEnvironment)
    }

    @Test func appTransactionIsCheckedByReceiptType() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root], environments: [.production])
        var app = AppTransactionPayload()
        app.bundleID = "com.example"
        app.receiptType = .production
        app.appAppleID = 1234
        app.receiptCreationDate = Fixtures.mintDate.addingTimeInterval(86_400)
        #expect(await verifier.verifyAppTransaction(try ca.sign(app)).value != nil)
        app.receiptType = .sandbox
        app.appAppleID = nil
        #expect(await verifier.verifyAppTransaction(try ca.sign(app)).failure?.code == .wrongEnvironment)
    }

    @Test func nestedSignedDataIsVerifiedWhenAsked() async throws {
        let verifier = Fixtures.verifier(roots: [ca.root])
        let other = try Fixtures.authority()
        var data = NotificationData()
        data.bundleID = "com.example"
        data.environment = .sandbox
        data.signedTransactionInfo = try ca.sign(Fixtures.transaction())
        var renewal = RenewalInfoPayload()
        renewal.environment = .sandbox
        renewal.signedDate = Fixtures.mintDate
        data.signedRenewalInfo = try ca.sign(renewal)

        let good = try await verifier.verifyNotification(try ca.sign(notification { $0.data = data }), includingSignedData: true).get()
        #expect(good.transaction?.payload.transactionID == "1000000000000001")
        #expect(good.renewalInfo?.payload.environment == .sandbox)

        data.signedTransactionInfo = try other.sign(Fixtures.transaction())
        let forged = try ca.sign(notification { $0.data = data })
        let failure = await verifier.verifyNotification(forged, includingSignedData: true).failure
        #expect(failure?.code == .untrustedChain)
        #expect(failure?.reason.hasPrefix("signedTransactionInfo") == true)
        // Without asking, only the notification itself is verified.
        let shallow = try await verifier.verifyNotification(forged).get()
        #expect(shallow.transaction == nil)
    }

    /// Xcode data is accepted only when configured, and a self-signed certificate never
    /// vouches for data that claims another environment.
    @Test func selfSignedDataVouchesOnlyForXcode() async throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("StoreKit Testing in Xcode") }
        let cert = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: Fixtures.mintDate, notValidAfter: Fixtures.mintDate.addingTimeInterval(365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(), issuerPrivateKey: .init(key))
        let header = try TestCertificateAuthority.headerSegment(x5c: [cert])
        var payload = Fixtures.transaction()
        payload.environment = .xcode
        let xcode = try TestCertificateAuthority.sign(json: AppStoreJSON.encoder().encode(payload), headerSegment: header, key: key)
        payload.environment = .production
        let claimsProduction = try TestCertificateAuthority.sign(json: AppStoreJSON.encoder().encode(payload), headerSegment: header, key: key)

        let both = Fixtures.verifier(roots: [AppleRootCertificates.appleRootCAG3, cert], environments: [.production, .xcode])
        #expect(await both.verifyTransaction(xcode).value?.origin == .xcodeSelfSigned)
        #expect(await both.verifyTransaction(claimsProduction).failure?.code == .untrustedChain)
        let productionOnly = Fixtures.verifier(roots: [AppleRootCertificates.appleRootCAG3], environments: [.production])
        #expect(await productionOnly.verifyTransaction(xcode).failure?.code == .badCertificateChainLength)
    }
}
