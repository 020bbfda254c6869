import Foundation
import TallyCore
import TallyTestSupport
import Testing

/// The catalog file: the shipped example loads; a setting that would break the server's
/// arithmetic or lock every request out is refused at start, naming its place.
@Suite struct TallyCatalogTests {
    static let example = Repository.root.appendingPathComponent("Examples/tally.json")

    /// The example with one top-level key set to `value` (JSON text).
    static func example(setting key: String, to value: String) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: example)) as? [String: Any])
        object[key] = try JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test func theExampleLoads() throws {
        let catalog = try TallyCatalog.load(contentsOf: Self.example)
        #expect(catalog.product("com.tally.photo.credits.50") != nil)
    }

    @Test(arguments: [
        ("order_ttl_seconds", "0", "order_ttl_seconds"),
        ("order_ttl_seconds", "9223372036854775807", "order_ttl_seconds"),
        ("maximum_reservation_seconds", "-1", "maximum_reservation_seconds"),
        ("maximum_reservation_seconds", "9223372036854775807", "maximum_reservation_seconds"),
        ("limits", #"{"maximum_body_bytes":0,"user_requests_per_minute":1,"ip_requests_per_minute":1}"#, "limits"),
    ])
    func outOfRangeSettingsAreRefusedByName(key: String, value: String, place: String) throws {
        let data = try Self.example(setting: key, to: value)
        #expect {
            _ = try TallyCatalog.parse(data)
        } throws: { error in
            (error as? CatalogError)?.reason.contains(place) == true
        }
    }
}
