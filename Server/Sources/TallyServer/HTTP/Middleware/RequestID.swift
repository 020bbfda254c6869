/// The identifier of a request: the caller's `X-Request-Id` when it is short and plain,
/// otherwise a new one. It is echoed in the answer, in error bodies and in every log line
/// of the request, so what is accepted must be safe in all three.
enum RequestID {
    static let maximumLength = 64

    /// Whether a caller's identifier is kept: 1 to 64 ASCII letters, digits, `-`, `_` or `.`.
    static func accepts(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        return !utf8.isEmpty && utf8.count <= maximumLength
            && utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    return true
                default:
                    return false
                }
            }
    }

    /// A new identifier: a random (version 4) UUID, lower case.
    static func new() -> String { RandomID.uuid() }
}
