/// One BER or DER element: where its identifier, content and end are in the input.
struct BERElement: Sendable {
    /// The identifier's class, the top two bits (0 universal, 1 application, 2 context, 3 private).
    let tagClass: UInt8
    /// Whether the element is constructed (holds elements) rather than primitive.
    let constructed: Bool
    /// The tag number.
    let tagNumber: UInt32
    /// The first byte of the identifier.
    let start: Int
    /// The first byte of the content.
    let contentStart: Int
    /// One past the last content byte (before the end-of-contents marker when indefinite).
    let contentEnd: Int
    /// One past the element's last byte, end-of-contents marker included.
    let end: Int
    /// Whether the length was indefinite (`0x80`, BER only).
    let indefinite: Bool
    /// How deep the element sits; the outermost is 0.
    let depth: Int

    /// Whether this is the universal, low-number tag `number`, primitive or constructed as given.
    func isUniversal(_ number: UInt32, constructed: Bool) -> Bool {
        tagClass == 0 && tagNumber == number && self.constructed == constructed
    }

    /// Whether this is the context-specific tag `[number]`.
    func isContext(_ number: UInt32, constructed: Bool) -> Bool {
        tagClass == 2 && tagNumber == number && self.constructed == constructed
    }

    var contentCount: Int { contentEnd - contentStart }

    /// A short name for error messages: `SEQUENCE`, `[0]`, `tag 4`.
    var name: String {
        switch (tagClass, tagNumber) {
        case (0, 2): return "INTEGER"
        case (0, 4): return "OCTET STRING"
        case (0, 6): return "OBJECT IDENTIFIER"
        case (0, 16): return "SEQUENCE"
        case (0, 17): return "SET"
        case (2, _): return "[\(tagNumber)]"
        default: return "tag \(tagClass):\(tagNumber)"
        }
    }
}

/// Why bytes are not the BER the reader expected, with the byte offset.
struct BERError: Error, Sendable, CustomStringConvertible {
    let offset: Int
    let reason: String
    var description: String { "\(reason) at byte \(offset)" }
}

/// Reads BER (and so DER) over a byte array: definite and indefinite lengths, low and high
/// tag numbers.
///
/// Every read is bounded by the enclosing element, nesting is limited to ``maximumDepth``, and
/// each element header read counts one unit of ``work`` against ``workLimit``, so no input
/// can make it read past the end, recurse without bound or run long. A definite-length
/// element is stepped over in constant time; an indefinite one is walked to its end-of-contents
/// marker, so an element is read at most once per indefinite ancestor.
struct BERReader {
    let bytes: [UInt8]
    let maximumDepth: Int
    let workLimit: Int
    /// Element headers read so far.
    private(set) var work = 0

    /// - Parameters:
    ///   - bytes: the input.
    ///   - maximumDepth: the deepest nesting accepted.
    ///   - workLimit: how many element headers may be read in all; by default four per input
    ///     byte and 64 more. DER reads each header once, and a header takes at least two bytes;
    ///     only indefinite-length nesting reads an element more than once.
    init(_ bytes: [UInt8], maximumDepth: Int = 24, workLimit: Int? = nil) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.workLimit = workLimit ?? (4 * bytes.count + 64)
    }

    /// Counts work done by a reader over a nested value, so one count covers a whole payload.
    mutating func absorb(_ nested: Int) {
        work += nested
    }

    /// The element that starts at `offset` and must end by `limit`.
    /// - Throws: ``BERError`` when the bytes there are not a complete element.
    mutating func element(at offset: Int, limit: Int, depth: Int) throws(BERError) -> BERElement {
        guard depth <= maximumDepth else {
            throw BERError(offset: offset, reason: "nesting deeper than \(maximumDepth)")
        }
        work += 1
        guard work <= workLimit else {
            throw BERError(offset: offset, reason: "more than \(workLimit) elements read")
        }
        var position = offset
        guard position < limit else { throw BERError(offset: offset, reason: "element expected, input ends") }
        let first = bytes[position]
        position += 1
        let tagClass = first >> 6
        let constructed = first & 0x20 != 0
        var tagNumber = UInt32(first & 0x1F)
        if tagNumber == 0x1F {
            // High tag number: base 128, most significant group first, at most 4 groups.
            tagNumber = 0
            var groups = 0
            while true {
                guard position < limit else { throw BERError(offset: offset, reason: "tag number runs past the end") }
                let byte = bytes[position]
                position += 1
                if groups == 0, byte == 0x80 {
                    throw BERError(offset: offset, reason: "tag number has a leading zero group")
                }
                groups += 1
                guard groups <= 4 else { throw BERError(offset: offset, reason: "tag number longer than 4 bytes") }
                tagNumber = tagNumber << 7 | UInt32(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            guard tagNumber >= 0x1F else { throw BERError(offset: offset, reason: "low tag number written in the long form") }
        }
        if tagClass == 0, tagNumber == 0 {
            throw BERError(offset: offset, reason: "end-of-contents marker where an element was expected")
        }

        guard position < limit else { throw BERError(offset: offset, reason: "length runs past the end") }
        let lengthByte = bytes[position]
        position += 1
        if lengthByte == 0x80 {
            guard constructed else { throw BERError(offset: offset, reason: "indefinite length on a primitive element") }
            // Walk the children to the end-of-contents marker.
            let contentStart = position
            while true {
                guard position + 2 <= limit else {
                    throw BERError(offset: offset, reason: "indefinite-length element has no end-of-contents marker")
                }
                if bytes[position] == 0, bytes[position + 1] == 0 {
                    return BERElement(
                        tagClass: tagClass, constructed: true, tagNumber: tagNumber, start: offset,
                        contentStart: contentStart, contentEnd: position, end: position + 2, indefinite: true, depth: depth)
                }
                position = try element(at: position, limit: limit, depth: depth + 1).end
            }
        }
        var length: Int
        if lengthByte < 0x80 {
            length = Int(lengthByte)
        } else {
            let count = Int(lengthByte & 0x7F)
            guard lengthByte != 0xFF else { throw BERError(offset: offset, reason: "reserved length byte 0xFF") }
            guard count <= 4 else { throw BERError(offset: offset, reason: "length of \(count) bytes") }
            guard position + count <= limit else { throw BERError(offset: offset, reason: "length runs past the end") }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard length <= limit - position else {
            throw BERError(offset: offset, reason: "\(length) content bytes announced, \(limit - position) left")
        }
        return BERElement(
            tagClass: tagClass, constructed: constructed, tagNumber: tagNumber, start: offset,
            contentStart: position, contentEnd: position + length, end: position + length, indefinite: false, depth: depth)
    }

    /// The outermost element, which must span all of the input.
    /// - Throws: ``BERError`` when the input is not exactly one element.
    mutating func root() throws(BERError) -> BERElement {
        let element = try element(at: 0, limit: bytes.count, depth: 0)
        guard element.end == bytes.count else {
            throw BERError(offset: element.end, reason: "\(bytes.count - element.end) bytes after the outermost element")
        }
        return element
    }

    /// The elements inside a constructed `element`, in order.
    /// - Throws: ``BERError`` when `element` is primitive or its content is not whole elements.
    mutating func children(of element: BERElement) throws(BERError) -> [BERElement] {
        guard element.constructed else {
            throw BERError(offset: element.start, reason: "\(element.name) is primitive where constructed content is expected")
        }
        var children: [BERElement] = []
        var position = element.contentStart
        while position < element.contentEnd {
            let child = try self.element(at: position, limit: element.contentEnd, depth: element.depth + 1)
            children.append(child)
            position = child.end
        }
        return children
    }

    /// The bytes of an element's content.
    func content(of element: BERElement) -> ArraySlice<UInt8> {
        bytes[element.contentStart..<element.contentEnd]
    }

    /// The bytes of the whole element, identifier and length included.
    func encoding(of element: BERElement) -> ArraySlice<UInt8> {
        bytes[element.start..<element.end]
    }

    /// The value of an OCTET STRING, primitive or constructed of chunks (BER), chunks joined.
    /// - Throws: ``BERError`` when `element` is not an OCTET STRING or a chunk is not one.
    mutating func octets(of element: BERElement) throws(BERError) -> [UInt8] {
        guard element.tagClass == 0, element.tagNumber == 4 else {
            throw BERError(offset: element.start, reason: "\(element.name) where an OCTET STRING is expected")
        }
        var output: [UInt8] = []
        try appendOctets(of: element, to: &output)
        return output
    }

    /// Appends a string's content; a constructed string's chunks must carry the same tag.
    private mutating func appendOctets(of element: BERElement, to output: inout [UInt8]) throws(BERError) {
        guard element.constructed else {
            output.append(contentsOf: content(of: element))
            return
        }
        for chunk in try children(of: element) {
            guard chunk.tagClass == element.tagClass, chunk.tagNumber == element.tagNumber else {
                throw BERError(offset: chunk.start, reason: "a chunk of a constructed string is \(chunk.name), not \(element.name)")
            }
            try appendOctets(of: chunk, to: &output)
        }
    }

    /// The content of a constructed character string (BER): its chunks, OCTET STRINGs or
    /// strings of the same type, joined.
    /// - Throws: ``BERError`` when a chunk is neither.
    mutating func stringOctets(of element: BERElement) throws(BERError) -> [UInt8] {
        var output: [UInt8] = []
        for chunk in try children(of: element) {
            guard !chunk.constructed, chunk.tagClass == 0, chunk.tagNumber == 4 || chunk.tagNumber == element.tagNumber else {
                throw BERError(offset: chunk.start, reason: "a chunk of a constructed string is \(chunk.name)")
            }
            output.append(contentsOf: content(of: chunk))
        }
        return output
    }

    /// The value of an INTEGER that fits in 64 bits, two's complement.
    /// - Throws: ``BERError`` when `element` is not such an INTEGER.
    func integer(of element: BERElement) throws(BERError) -> Int64 {
        guard element.isUniversal(2, constructed: false) else {
            throw BERError(offset: element.start, reason: "\(element.name) where an INTEGER is expected")
        }
        let content = content(of: element)
        guard !content.isEmpty else { throw BERError(offset: element.start, reason: "INTEGER without content") }
        guard content.count <= 8 else { throw BERError(offset: element.start, reason: "INTEGER wider than 64 bits") }
        var value: Int64 = content.first! & 0x80 != 0 ? -1 : 0
        for byte in content { value = value << 8 | Int64(byte) }
        return value
    }

    /// Re-encodes an element with definite lengths only, as DER requires of signed attributes.
    func definiteEncoding(of element: BERElement, tag: UInt8? = nil) -> [UInt8] {
        var reader = self
        return reader.definite(element, tag: tag)
    }

    private mutating func definite(_ element: BERElement, tag: UInt8?) -> [UInt8] {
        var content: [UInt8]
        if element.indefinite, let children = try? children(of: element) {
            content = []
            for child in children { content += definite(child, tag: nil) }
        } else if !element.indefinite, element.constructed, let children = try? children(of: element) {
            content = []
            for child in children { content += definite(child, tag: nil) }
        } else {
            content = Array(self.content(of: element))
        }
        let identifierEnd = element.start + identifierLength(at: element.start)
        var output = tag.map { [$0] } ?? Array(bytes[element.start..<identifierEnd])
        output += Self.derLength(content.count)
        return output + content
    }

    private func identifierLength(at offset: Int) -> Int {
        guard bytes[offset] & 0x1F == 0x1F else { return 1 }
        var length = 1
        while offset + length < bytes.count, bytes[offset + length] & 0x80 != 0 { length += 1 }
        return length + 1
    }

    /// A DER length: short form under 128, otherwise the fewest bytes.
    static func derLength(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var rest = length
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
