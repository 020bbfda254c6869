/// Writes DER, and BER with indefinite lengths, byte by byte: what minting receipts needs,
/// including the encodings swift-asn1's serializer will not produce.
enum ASN1Writer {
    static let sequenceTag: UInt8 = 0x30
    static let setTag: UInt8 = 0x31

    /// An element with a definite length.
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    /// A constructed element with an indefinite length, ended by the end-of-contents marker.
    static func indefinite(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag | 0x20, 0x80] + content + [0x00, 0x00]
    }

    static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        element(sequenceTag, elements.flatMap { $0 })
    }

    /// A SET OF in DER order: elements sorted by their encodings.
    static func set(_ elements: [[UInt8]]) -> [UInt8] {
        element(setTag, elements.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 })
    }

    /// An INTEGER in the fewest two's-complement bytes.
    static func integer(_ value: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
        } while !(rest == 0 && bytes[0] & 0x80 == 0) && !(rest == -1 && bytes[0] & 0x80 != 0)
        return element(0x02, bytes)
    }

    /// A non-negative INTEGER from its big-endian bytes (a serial number): leading zeros
    /// dropped, one zero added when the top bit is set, as a certificate encodes it.
    static func integer(unsigned bytes: some Collection<UInt8>) -> [UInt8] {
        var content = Array(bytes.drop { $0 == 0 })
        if content.first.map({ $0 & 0x80 != 0 }) ?? true { content.insert(0, at: 0) }
        return element(0x02, content)
    }

    static func oid(_ content: [UInt8]) -> [UInt8] {
        element(0x06, content)
    }

    static let null: [UInt8] = [0x05, 0x00]

    static func octetString(_ bytes: [UInt8]) -> [UInt8] {
        element(0x04, bytes)
    }

    static func utf8String(_ text: String) -> [UInt8] {
        element(0x0C, Array(text.utf8))
    }

    static func ia5String(_ text: String) -> [UInt8] {
        element(0x16, Array(text.utf8))
    }

    /// `[number]` EXPLICIT or a constructed IMPLICIT context tag around `content`.
    static func context(_ number: UInt8, _ content: [UInt8]) -> [UInt8] {
        element(0xA0 | number, content)
    }

    /// A DER length: short form under 128, otherwise the fewest bytes.
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
