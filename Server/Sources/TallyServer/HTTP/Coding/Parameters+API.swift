import Hummingbird

/// The API's path and query parameters, read strictly: anything out of range is 400
/// `invalid_request` naming the parameter, never a silent default.
extension Parameters {
    /// A resource's identifier from the path: 1 to 128 characters, none a control character
    /// (a percent-encoded NUL is no text to PostgreSQL).
    /// - Throws: ``TallyAPIError`` `invalid_request` otherwise.
    func identifier(_ name: String) throws -> String {
        guard let value = get(name), APIPattern.isIdentifier(value) else {
            throw TallyAPIError(.invalidRequest, "\(name) must be 1 to 128 characters, none of them a control character")
        }
        return value
    }

    /// A page's `limit`: 1 to `maximum`, 50 when absent.
    /// - Throws: ``TallyAPIError`` `invalid_request` otherwise.
    func pageSize(maximum: Int = 200) throws -> Int {
        guard let text = self["limit"] else { return Swift.min(50, maximum) }
        guard let value = Int(text), (1...maximum).contains(value) else {
            throw TallyAPIError(.invalidRequest, "limit must be 1 to \(maximum)")
        }
        return value
    }

    /// The ledger's `cursor`: a positive entry number from the previous page, nil when absent.
    /// - Throws: ``TallyAPIError`` `invalid_request` for anything else.
    func ledgerCursor() throws -> Int64? {
        guard let text = self["cursor"] else { return nil }
        guard let value = Int64(text), value > 0 else { throw TallyAPIError(.invalidRequest, "cursor is not one this server gave") }
        return value
    }

    /// An admin list's `cursor`, as ``AdminCursor/text`` wrote it; nil when absent.
    /// - Throws: ``TallyAPIError`` `invalid_request` for anything else.
    func adminCursor() throws -> AdminCursor? {
        guard let text = self["cursor"] else { return nil }
        guard let cursor = AdminCursor(text: text) else { throw TallyAPIError(.invalidRequest, "cursor is not one this server gave") }
        return cursor
    }

    /// A query parameter as a `String`, nil when absent.
    func string(_ name: String) -> String? {
        self[name[...]].map(String.init)
    }
}
