import Crypto
public import Foundation
import SwiftASN1
import TallyVerify
import X509

extension TestCertificateAuthority {
    /// The files an authority keeps in its folder.
    public enum FolderFile: String, CaseIterable, Sendable {
        /// The root certificate, DER: what a verifier's `--root` or `--trust-ca-dir` reads.
        case rootDER = "root.cer"
        /// The root certificate, PEM.
        case rootPEM = "root.pem"
        /// The intermediate certificate, PEM.
        case intermediatePEM = "intermediate.pem"
        /// The signing leaf certificate, PEM.
        case leafPEM = "leaf.pem"
        /// The root's private key, PKCS#8 PEM.
        case rootKey = "root-key.pem"
        /// The intermediate's private key, PKCS#8 PEM.
        case intermediateKey = "intermediate-key.pem"
        /// The leaf's private key, PKCS#8 PEM.
        case leafKey = "leaf-key.pem"
    }

    /// Opens the authority kept in `folder`, or mints one there when the folder is missing or
    /// empty, so that separate processes (a simulated store and a server) share one root.
    /// - Parameters:
    ///   - folder: the folder (`--ca-dir`).
    ///   - now: when a new chain is issued.
    /// - Returns: the authority.
    /// - Throws: ``FolderError`` when the folder holds some files but not a whole authority, or unreadable ones.
    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    public static func openOrCreate(folder: URL, now: Date) throws(FolderError) -> TestCertificateAuthority {
        let manager = FileManager.default
        let existing = (try? manager.contentsOfDirectory(atPath: folder.path)) ?? []
        if existing.isEmpty {
            let authority: TestCertificateAuthority
            do {
                authority = try TestCertificateAuthority(profile: .init(issuedAt: now))
            } catch {
                throw FolderError(folder: folder, reason: "cannot mint a chain: \(error)")
            }
            try authority.save(to: folder)
            return authority
        }
        return try load(from: folder)
    }

    /// Loads an authority saved with ``save(to:)``.
    /// - Throws: ``FolderError`` naming the missing or unreadable file.
    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    public static func load(from folder: URL) throws(FolderError) -> TestCertificateAuthority {
        func text(_ file: FolderFile) throws(FolderError) -> String {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file.rawValue).path) else {
                throw FolderError(folder: folder, reason: "\(file.rawValue) is missing")
            }
            return String(decoding: data, as: UTF8.self)
        }
        func certificate(_ file: FolderFile) throws(FolderError) -> Certificate {
            do {
                return try Certificate(pemEncoded: text(file))
            } catch let error as FolderError {
                throw error
            } catch {
                throw FolderError(folder: folder, reason: "\(file.rawValue) is not a PEM certificate: \(error)")
            }
        }
        func key(_ file: FolderFile) throws(FolderError) -> P256.Signing.PrivateKey {
            do {
                return try P256.Signing.PrivateKey(pemRepresentation: text(file))
            } catch let error as FolderError {
                throw error
            } catch {
                throw FolderError(folder: folder, reason: "\(file.rawValue) is not a P-256 private key: \(error)")
            }
        }
        do {
            let authority = try TestCertificateAuthority(
                root: certificate(.rootPEM), intermediate: certificate(.intermediatePEM), leaf: certificate(.leafPEM),
                rootKey: key(.rootKey), intermediateKey: key(.intermediateKey), leafKey: key(.leafKey))
            guard authority.leaf.publicKey == Certificate.PublicKey(authority.leafKey.publicKey) else {
                throw FolderError(folder: folder, reason: "leaf-key.pem does not match leaf.pem")
            }
            return authority
        } catch let error as FolderError {
            throw error
        } catch {
            throw FolderError(folder: folder, reason: "cannot assemble the authority: \(error)")
        }
    }

    /// Writes the certificates and keys to `folder` (created when missing), keys readable by the owner only.
    /// - Throws: ``FolderError`` when a file cannot be written.
    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    public func save(to folder: URL) throws(FolderError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let files: [(FolderFile, Data, Bool)] = [
                (.rootDER, Data(try Self.der(root)), false),
                (.rootPEM, Data(try root.serializeAsPEM().pemString.utf8), false),
                (.intermediatePEM, Data(try intermediate.serializeAsPEM().pemString.utf8), false),
                (.leafPEM, Data(try leaf.serializeAsPEM().pemString.utf8), false),
                (.rootKey, Data(rootKey.pemRepresentation.utf8), true),
                (.intermediateKey, Data(intermediateKey.pemRepresentation.utf8), true),
                (.leafKey, Data(leafKey.pemRepresentation.utf8), true),
            ]
            for (file, data, secret) in files {
                let url = folder.appendingPathComponent(file.rawValue)
                try data.write(to: url, options: .atomic)
                if secret { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
            }
        } catch {
            throw FolderError(folder: folder, reason: "cannot write: \(error)")
        }
    }

    /// A certificate authority folder that cannot be used.
    public struct FolderError: Error, CustomStringConvertible, Sendable {
        /// The folder.
        public let folder: URL
        /// What is wrong with it.
        public let reason: String
        public var description: String { "\(folder.path): \(reason)" }
    }
}
