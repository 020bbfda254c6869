import Foundation
import SwiftASN1
import X509

/// Says what is wrong with an input from the error a library threw on it.
///
/// The libraries' own descriptions end in the file and line of their code
/// (`ASN1Error.truncatedASN1Field: … ASN1.swift:123`), which tells the sender of bad data
/// nothing and leaks where in the code it failed. Failure reasons are made here instead: from
/// the error's code, or from the parts of a decoding error that name the input.
enum InputProblem {
    /// Why DER bytes are not a certificate, e.g. "the DER ends in the middle of a field".
    static func certificate(_ error: any Error) -> String {
        if let error = error as? ASN1Error {
            switch error.code {
            case .truncatedASN1Field: return "the DER ends in the middle of a field"
            case .unexpectedFieldType: return "a field has another ASN.1 type than a certificate has there"
            case .invalidASN1IntegerEncoding: return "an integer is not in minimal DER form"
            case .unsupportedFieldLength: return "a field's length is encoded in a form DER does not allow"
            case .invalidStringRepresentation: return "a string field holds characters its type does not allow"
            case .tooFewOIDComponents: return "an object identifier has too few components"
            default: return "the bytes do not have a certificate's ASN.1 structure"
            }
        }
        if let error = error as? CertificateError {
            // The code names the problem (e.g. unsupportedSignatureAlgorithm); the description adds a source location.
            return "the certificate cannot be read (\(error.code))"
        }
        return "the bytes do not have a certificate's ASN.1 structure"
    }

    /// Why JSON does not decode as the expected type, e.g. "quantity: expected an integer, found a string".
    static func decoding(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            return place(context.codingPath) + scrubbed(context.debugDescription)
        case DecodingError.keyNotFound(let key, let context):
            return place(context.codingPath) + "missing \(key.stringValue)"
        default:
            return scrubbed(String(describing: error))
        }
    }

    private static func place(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + ": "
    }

    /// `text` without the source locations (`File.swift:123`) a library appended to it.
    static func scrubbed(_ text: String) -> String {
        guard text.contains(".swift:") else { return text }
        let words = text.split(separator: " ", omittingEmptySubsequences: false).filter { word in
            guard let range = word.range(of: ".swift:") else { return true }
            return !word[range.upperBound...].prefix(while: { $0 != ")" && $0 != "," && $0 != ";" }).allSatisfy(\.isNumber)
        }
        return words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
