public import Foundation
import TallyCore
public import X509

/// Reads trust anchors from files as people have them: DER (`.cer`) or PEM, one or more.
public enum CertificateLoading: Sendable {
    /// The certificates in `bytes`, DER or PEM.
    /// - Throws: ``CertificateLoadingError`` when the bytes hold no certificate.
    public static func certificates(from bytes: [UInt8]) throws(CertificateLoadingError) -> [Certificate] {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN CERTIFICATE-----") {
            let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
            var certificates: [Certificate] = []
            for block in blocks {
                guard let end = block.range(of: "-----END CERTIFICATE-----") else {
                    throw CertificateLoadingError(reason: "a PEM block has no END line")
                }
                let body = block[..<end.lowerBound].filter { !$0.isWhitespace }
                guard let der = Base64.decode(body.utf8, alphabet: .standard) else {
                    throw CertificateLoadingError(reason: "a PEM block is not base64")
                }
                do {
                    certificates.append(try Certificate(derEncoded: der))
                } catch {
                    throw CertificateLoadingError(reason: "a PEM block is not an X.509 certificate: \(InputProblem.certificate(error))")
                }
            }
            return certificates
        }
        do {
            return [try Certificate(derEncoded: bytes)]
        } catch {
            throw CertificateLoadingError(reason: "neither PEM nor a DER X.509 certificate: \(InputProblem.certificate(error))")
        }
    }

    /// The certificates in the file at `url`, DER or PEM.
    /// - Throws: ``CertificateLoadingError`` when the file cannot be read or holds no certificate.
    public static func certificates(contentsOf url: URL) throws(CertificateLoadingError) -> [Certificate] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CertificateLoadingError(reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            return try certificates(from: Array(data))
        } catch {
            throw CertificateLoadingError(reason: "\(url.path): \(error.reason)")
        }
    }
}

/// A trust anchor file that holds no usable certificate.
public struct CertificateLoadingError: Error, CustomStringConvertible, Sendable {
    /// What is wrong with the file.
    public let reason: String
    public var description: String { reason }
}
