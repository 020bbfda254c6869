public import Foundation
import X509
import _CryptoExtras

extension TestReceiptAuthority {
    /// The files a receipt authority keeps in a certificate authority folder, beside the JWS
    /// authority's (``TestCertificateAuthority/FolderFile``); every name starts with `receipt-`.
    public enum FolderFile: String, CaseIterable, Sendable {
        /// The root certificate, DER: what `tally verify --kind receipt --root` and a server's
        /// `--trust-ca-dir` read.
        case rootDER = "receipt-root.cer"
        /// The root certificate, PEM.
        case rootPEM = "receipt-root.pem"
        /// The intermediate certificate, PEM.
        case intermediatePEM = "receipt-intermediate.pem"
        /// The signing certificate, PEM.
        case signerPEM = "receipt-signer.pem"
        /// The signing certificate's RSA private key, PKCS#8 PEM.
        case signerKey = "receipt-signer-key.pem"
    }

    /// Opens the receipt authority kept in `folder`, or mints one there when none of its files
    /// exist, so that a simulated store and a server started separately share one receipt root.
    /// The folder may hold other files (a JWS authority's).
    /// - Parameters:
    ///   - folder: the folder (`--ca-dir`).
    ///   - now: when a new chain is issued.
    /// - Returns: the authority.
    /// - Throws: ``TestCertificateAuthority/FolderError`` when some of its files exist but not
    ///   all, or one cannot be read or written.
    public static func openOrCreate(folder: URL, now: Date) throws(TestCertificateAuthority.FolderError) -> TestReceiptAuthority {
        let present = FolderFile.allCases.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0.rawValue).path) }
        if present.isEmpty {
            let authority: TestReceiptAuthority
            do {
                authority = try TestReceiptAuthority(profile: .init(issuedAt: now))
            } catch {
                throw TestCertificateAuthority.FolderError(folder: folder, reason: "cannot mint a receipt chain: \(error)")
            }
            try authority.save(to: folder)
            return authority
        }
        return try load(from: folder)
    }

    /// Loads a receipt authority saved with ``save(to:)``.
    /// - Throws: ``TestCertificateAuthority/FolderError`` naming the missing or unreadable file.
    public static func load(from folder: URL) throws(TestCertificateAuthority.FolderError) -> TestReceiptAuthority {
        func text(_ file: FolderFile) throws(TestCertificateAuthority.FolderError) -> String {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file.rawValue).path) else {
                throw TestCertificateAuthority.FolderError(folder: folder, reason: "\(file.rawValue) is missing")
            }
            return String(decoding: data, as: UTF8.self)
        }
        func certificate(_ file: FolderFile) throws(TestCertificateAuthority.FolderError) -> Certificate {
            let pem = try text(file)
            do {
                return try Certificate(pemEncoded: pem)
            } catch {
                throw TestCertificateAuthority.FolderError(folder: folder, reason: "\(file.rawValue) is not a PEM certificate: \(error)")
            }
        }
        let keyText = try text(.signerKey)
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: keyText)
        } catch {
            throw TestCertificateAuthority.FolderError(folder: folder, reason: "\(FolderFile.signerKey.rawValue) is not an RSA private key: \(error)")
        }
        let signer = try certificate(.signerPEM)
        guard signer.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw TestCertificateAuthority.FolderError(
                folder: folder, reason: "\(FolderFile.signerKey.rawValue) does not match \(FolderFile.signerPEM.rawValue)")
        }
        return TestReceiptAuthority(root: try certificate(.rootPEM), intermediate: try certificate(.intermediatePEM), signer: signer, signerKey: key)
    }

    /// Writes the certificates and the signer's key to `folder` (created when missing), the key
    /// readable by the owner only. The root's and intermediate's keys are not kept: only the
    /// signer signs receipts.
    /// - Throws: ``TestCertificateAuthority/FolderError`` when a file cannot be written, or for
    ///   an authority without an intermediate (Xcode's kind), which this layout does not hold.
    public func save(to folder: URL) throws(TestCertificateAuthority.FolderError) {
        guard let intermediate else {
            throw TestCertificateAuthority.FolderError(folder: folder, reason: "a receipt authority without an intermediate is not kept in a folder")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let files: [(FolderFile, Data, Bool)] = [
                (.rootDER, Data(try TestCertificateAuthority.der(root)), false),
                (.rootPEM, Data(try root.serializeAsPEM().pemString.utf8), false),
                (.intermediatePEM, Data(try intermediate.serializeAsPEM().pemString.utf8), false),
                (.signerPEM, Data(try signer.serializeAsPEM().pemString.utf8), false),
                (.signerKey, Data(signerKey.pemRepresentation.utf8), true),
            ]
            for (file, data, secret) in files {
                let url = folder.appendingPathComponent(file.rawValue)
                try data.write(to: url, options: .atomic)
                if secret { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
            }
        } catch {
            throw TestCertificateAuthority.FolderError(folder: folder, reason: "cannot write: \(error)")
        }
    }
}
