import Foundation
import TallyCore
import TallyTestSupport
import Testing

/// `AppStoreJSON.decode` against Foundation's `JSONDecoder`: whatever the fast decoder
/// accepts, Foundation reads the same way; what it refuses is refused for a stated reason.
@Suite struct PayloadDecoderTests {
    @Test(.enabled(if: Vectors.available, Vectors.skipNote), arguments: PayloadDecodingTests.fixtures.map(\.file))
    func fixturesDecodeAsFoundationDecodesThem(file: String) throws {
        let data = try Vectors.data("apple/models/\(file)")
        let type = try #require(PayloadDecodingTests.fixtures.first { $0.file == file }?.type)
        #expect(try Self.sameAsFoundation(data, type))
    }

    @Test func escapesAndUnicodeDecodeAsFoundationDecodesThem() throws {
        let json = #"{"productId":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 ünï","storefront":"","bundleId":"\u0041"}"#
        let fast = try AppStoreJSON.decode(TransactionPayload.self, from: Array(json.utf8))
        let foundation = try AppStoreJSON.decoder().decode(TransactionPayload.self, from: Data(json.utf8))
        #expect(fast == foundation)
        #expect(fast.productID == "a\"b\\c/d\u{8}\u{c}\n\r\té😀 ünï")
        #expect(fast.bundleID == "A")
    }

    @Test func numbersAreExactOrRefused() throws {
        let big = try AppStoreJSON.decode(TransactionPayload.self, from: Array(#"{"price":9223372036854775807,"quantity":-3}"#.utf8))
        #expect(big.price == Int64.max)
        #expect(big.quantity == -3)
        for json in [#"{"price":9223372036854775808}"#, #"{"quantity":1.5}"#, #"{"quantity":1e2}"#, #"{"offerType":4294967296}"#] {
            #expect(throws: (any Error).self, "\(json)") { try AppStoreJSON.decode(TransactionPayload.self, from: Array(json.utf8)) }
        }
    }

    @Test func datesAreEpochMilliseconds() throws {
        let payload = try AppStoreJSON.decode(
            TransactionPayload.self, from: Array(#"{"signedDate":1697679936056.485,"purchaseDate":0,"expiresDate":-1000}"#.utf8))
        #expect(payload.purchaseDate == Date(timeIntervalSince1970: 0))
        #expect(payload.expiresDate == Date(timeIntervalSince1970: -1))
        #expect(abs(payload.signedDate!.timeIntervalSince1970 - 1_697_679_936.056485) < 1e-6)
    }

    @Test func nullIsAbsent() throws {
        let payload = try AppStoreJSON.decode(TransactionPayload.self, from: Array(#"{"price":null,"bundleId":"x"}"#.utf8))
        #expect(payload.price == nil)
        #expect(payload.bundleID == "x")
    }

    @Test(arguments: [
        "", " ", "{", "}", "{\"a\":}", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{'a':1}", "{\"a\":01}", "{\"a\":-}",
        "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":NaN}", "{\"a\":tru}", "{\"a\":\"\u{1}\"}", "{\"a\":\"\\x\"}",
        "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":1} x", "{\"a\":1}{", "{\"a\":1,\"a\":2}", "{\"a\":\"unterminated}",
        "{\"a\":1e999}", "{\"signedDate\":1e-400}", "{\"signedDate\":-5e-330}",
    ])
    func invalidJSONIsRefused(json: String) {
        #expect(throws: (any Error).self) { try AppStoreJSON.decode(TransactionPayload.self, from: Array(json.utf8)) }
    }

    @Test func invalidUTF8IsRefused() {
        let bytes: [UInt8] = Array(#"{"bundleId":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: (any Error).self) { try AppStoreJSON.decode(TransactionPayload.self, from: bytes) }
    }

    @Test func deepNestingIsRefusedWithoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: (any Error).self) { try AppStoreJSON.decode(TransactionPayload.self, from: Array(deep.utf8)) }
    }

    @Test func wrongTypesAreDecodingErrors() {
        for json in [#"{"price":"4990"}"#, #"{"bundleId":5}"#, #"{"isUpgraded":"yes"}"#, #"["a"]"#, #"{"eligibleWinBackOfferIds":"x"}"#] {
            #expect(throws: DecodingError.self, "\(json)") {
                if json.contains("eligible") {
                    _ = try AppStoreJSON.decode(RenewalInfoPayload.self, from: Array(json.utf8))
                } else {
                    _ = try AppStoreJSON.decode(TransactionPayload.self, from: Array(json.utf8))
                }
            }
        }
    }

    /// Random single-byte edits of real payloads: when the fast decoder accepts the result,
    /// Foundation must accept it too and read the same values.
    @Test(.enabled(if: Vectors.available, Vectors.skipNote))
    func mutatedPayloadsNeverDecodeDifferently() throws {
        var generator = SeededGenerator(seed: 2026)
        let alphabet = Array(#"{}[]:,"\0123456789.-+eEtrufalsn xyz\é"#.utf8)
        var accepted = 0
        for (file, type) in PayloadDecodingTests.fixtures {
            let original = Array(try Vectors.data("apple/models/\(file)"))
            for _ in 0..<300 {
                var bytes = original
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = alphabet.randomElement(using: &generator)!
                if try Self.sameAsFoundation(Data(bytes), type) { accepted += 1 }
            }
        }
        #expect(accepted > 0, "no mutation was accepted, so the property was never exercised")
    }

    /// Numbers rewritten in every JSON spelling (fractions, exponents, signs, underflow,
    /// overflow): whatever the fast decoder accepts, Foundation reads the same way.
    @Test(.enabled(if: Vectors.available, Vectors.skipNote))
    func numberSpellingsNeverDecodeDifferently() throws {
        let spellings = [
            "1.0", "1e2", "1E+2", "-0", "-0.0", "0.5", "5.000", "1e-400", "9e999", "-1", "1e18", "123456789012345678901",
            "0e0", "1.5e-3", "00", "-", "2.", "4.2e",
        ]
        var accepted = 0
        for (file, type) in PayloadDecodingTests.fixtures {
            let text = String(decoding: try Vectors.data("apple/models/\(file)"), as: UTF8.self)
            let numbers = try NSRegularExpression(pattern: #"(?<=: ?)-?[0-9]+(\.[0-9]+)?"#)
            for match in numbers.matches(in: text, range: NSRange(text.startIndex..., in: text)).prefix(6) {
                for spelling in spellings {
                    let mutated = (text as NSString).replacingCharacters(in: match.range, with: spelling)
                    if try Self.sameAsFoundation(Data(mutated.utf8), type) { accepted += 1 }
                }
            }
        }
        #expect(accepted > 0)
    }

    /// True when the fast decoder accepts `data`, after checking Foundation reads the same.
    static func sameAsFoundation(_ data: Data, _ type: any AppStoreSignedPayload.Type) throws -> Bool {
        func check<P: AppStoreSignedPayload>(_: P.Type) throws -> Bool {
            guard let fast = try? AppStoreJSON.decode(P.self, from: Array(data)) else { return false }
            let foundation = try AppStoreJSON.decoder().decode(P.self, from: data)
            #expect(fast == foundation, "\(String(decoding: data, as: UTF8.self))")
            return true
        }
        return try check(type)
    }
}
