/// A position in an admin list ordered newest first: the time received and, among rows of the
/// same millisecond, the row's identifier, so that no row falls between two pages.
public struct AdminCursor: Sendable, Hashable {
    /// When the last row of the page was received, in milliseconds since 1970.
    public var receivedAt: Int64
    /// Its identifier (transaction id or notification UUID).
    public var id: String

    /// - Parameters:
    ///   - receivedAt: milliseconds since 1970.
    ///   - id: the row's identifier.
    public init(receivedAt: Int64, id: String) {
        self.receivedAt = receivedAt
        self.id = id
    }

    /// Reads a cursor as ``text`` writes it (`<milliseconds>_<id>`: 1 to 18 digits, then 1 to
    /// 128 characters, none a control character); nil for anything else.
    public init?(text: some StringProtocol) {
        let text = String(text)
        guard APIPattern.adminCursor.matches(text), let separator = text.firstIndex(of: "_"), let millis = Int64(text[..<separator]) else {
            return nil
        }
        self.init(receivedAt: millis, id: String(text[text.index(after: separator)...]))
    }

    /// The cursor as `next_cursor` gives it.
    public var text: String { "\(receivedAt)_\(id)" }
}
