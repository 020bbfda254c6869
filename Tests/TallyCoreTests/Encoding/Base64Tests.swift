import TallyCore
import Testing

@Suite struct Base64Tests {
    @Test(arguments: [
        ("", [UInt8]()), ("Zg", Array("f".utf8)), ("Zm8", Array("fo".utf8)), ("Zm9v", Array("foo".utf8)),
        ("-_8", [0xFB, 0xFF]),
    ])
    func decodesBase64URL(input: String, expected: [UInt8]) {
        #expect(Base64.decode(input.utf8, alphabet: .url) == expected)
    }

    @Test(arguments: ["Zg==", "Zm8=", "+/8", "Z", "Zh", "Z m9v", "Zm9v\n"])
    func rejectsWhatIsNotStrictBase64URL(input: String) {
        #expect(Base64.decode(input.utf8, alphabet: .url) == nil)
    }

    @Test func standardAlphabetAcceptsPaddingOnlyAtTheEnd() {
        #expect(Base64.decode("Zg==".utf8, alphabet: .standard) == Array("f".utf8))
        #expect(Base64.decode("Zg".utf8, alphabet: .standard) == Array("f".utf8))
        #expect(Base64.decode("+/8=".utf8, alphabet: .standard) == [0xFB, 0xFF])
        #expect(Base64.decode("Z=g=".utf8, alphabet: .standard) == nil)
        #expect(Base64.decode("Zg===".utf8, alphabet: .standard) == nil)
        #expect(Base64.decode("-_8".utf8, alphabet: .standard) == nil)
    }

    @Test func encodingRoundTrips() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64.decode(Base64.encodeURL(bytes).utf8, alphabet: .url) == bytes)
        }
    }
}
