import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import TallyVerify
import Testing
import X509

@Suite struct CertificateAuthorityFolderTests {
    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    func folder() throws -> URL {
        try TemporaryFolder().fileURL("ca")
    }

    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    @Test func anEmptyFolderGetsANewAuthorityAndReopensTheSame() throws {
        let folder = try folder()
        let created = try TestCertificateAuthority.openOrCreate(folder: folder, now: Date())
        for file in TestCertificateAuthority.FolderFile.allCases {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file.rawValue).path), "\(file.rawValue)")
        }
        let der = try Data(contentsOf: folder.appendingPathComponent("root.cer"))
        #expect(try Certificate(derEncoded: Array(der)) == created.root)
        let pem = try String(contentsOf: folder.appendingPathComponent("root.pem"), encoding: .utf8)
        #expect(try Certificate(pemEncoded: pem) == created.root)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("leaf-key.pem").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let reopened = try TestCertificateAuthority.openOrCreate(folder: folder, now: Date())
        #expect(reopened.root == created.root)
        #expect(reopened.leafKey.publicKey.rawRepresentation == created.leafKey.publicKey.rawRepresentation)
    }

    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    @Test func anotherProcessSigningWithTheSameFolderVerifies() async throws {
        let folder = try folder()
        let signer = try TestCertificateAuthority.openOrCreate(folder: folder, now: Date())
        var payload = TransactionPayload()
        payload.bundleID = "com.example"
        payload.environment = .sandbox
        payload.signedDate = Date()
        let jws = try signer.sign(payload)
        // A verifier that only has the folder's root.cer, as `tally serve --trust-ca-dir` would.
        let roots = try CertificateLoading.certificates(contentsOf: folder.appendingPathComponent("root.cer"))
        let verifier = SignedDataVerifier(
            .init(bundleID: .equals("com.example"), appAppleID: .any, environments: [.sandbox], rootCertificates: roots), now: Date.init)
        #expect(await verifier.verifyTransaction(jws).value != nil)
    }

    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    @Test func aFolderWithSomeFilesMissingIsAnError() throws {
        let folder = try folder()
        _ = try TestCertificateAuthority.openOrCreate(folder: folder, now: Date())
        try FileManager.default.removeItem(at: folder.appendingPathComponent("leaf-key.pem"))
        #expect(throws: TestCertificateAuthority.FolderError.self) { try TestCertificateAuthority.openOrCreate(folder: folder, now: Date()) }
    }

    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    @Test func aKeyThatDoesNotMatchItsCertificateIsAnError() throws {
        let first = try folder()
        let second = try folder()
        _ = try TestCertificateAuthority.openOrCreate(folder: first, now: Date())
        _ = try TestCertificateAuthority.openOrCreate(folder: second, now: Date())
        try FileManager.default.removeItem(at: first.appendingPathComponent("leaf-key.pem"))
        try FileManager.default.copyItem(at: second.appendingPathComponent("leaf-key.pem"), to: first.appendingPathComponent("leaf-key.pem"))
        #expect(throws: TestCertificateAuthority.FolderError.self) { try TestCertificateAuthority.load(from: first) }
    }
}
