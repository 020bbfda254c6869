import Foundation
import TallyCore

/// The OpenAPI document a server serves at `/openapi.yaml`: the one built into it, with what
/// depends on its catalog stated for this catalog, so that a client generated from it refuses
/// what the server would refuse. The currencies (`Currency`), the products (`ProductID`) and
/// the longest reservation (`ttl_seconds`) are the catalog's; everything else is as written in
/// `Resources/openapi.yaml`.
enum OpenAPIDocument {
    /// The document as written in the repository, with the example catalog's values.
    static func written() -> String? {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"), let data = try? Data(contentsOf: url) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `document` with `catalog`'s currencies, products and longest reservation.
    static func rendered(_ document: String, for catalog: TallyCatalog) -> String {
        var lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        replaceEnum(of: "Currency", with: catalog.currencies.map(\.code), in: &lines)
        replaceEnum(of: "ProductID", with: catalog.products.map(\.productID), in: &lines)
        let ttl = "        ttl_seconds: { type: integer, format: int64, minimum: 1, maximum: "
        if let index = lines.firstIndex(where: { $0.hasPrefix(ttl) }), let end = lines[index].dropFirst(ttl.count).firstIndex(of: ",") {
            lines[index] = ttl + String(catalog.maximumReservationSeconds) + lines[index][end...]
        }
        return lines.joined(separator: "\n")
    }

    /// Replaces the `enum:` line of the component schema `name` with `values`, each a JSON
    /// string (which YAML reads as a double-quoted scalar).
    private static func replaceEnum(of name: String, with values: [String], in lines: inout [String]) {
        guard let start = lines.firstIndex(of: "    \(name):"),
            let index = lines[(start + 1)...].prefix(while: { $0.hasPrefix("      ") }).firstIndex(where: { $0.hasPrefix("      enum: ") })
        else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let quoted = values.map { String(decoding: (try? encoder.encode($0)) ?? Data("\"\"".utf8), as: UTF8.self) }
        lines[index] = "      enum: [\(quoted.joined(separator: ", "))]"
    }
}
