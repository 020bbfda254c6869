/// One SQL statement, or a fragment of one, with its values bound where they stand.
///
/// Write it as a string literal; an interpolated value becomes a bound parameter, never text:
///
/// ```swift
/// let statement: SQL = "SELECT remaining FROM lots WHERE transaction_id = \(transactionID) AND currency = \(currency)"
/// let rows = try await executor.query(statement)
/// ```
///
/// The executor renders it for its database (``rendered(for:)``): `?` placeholders on SQLite,
/// `$1, $2, …` on PostgreSQL, the values in the same order. The text is never scanned for
/// placeholders, so a `?` or `$1` inside a string literal, a comment or an operator stays what
/// it is, and a value containing quotes or `?` is only ever a value.
///
/// What may become text is named at the interpolation:
/// - `\(fragment)` — another ``SQL``, with its own binds (conditions built apart, sub-queries).
/// - `\(Columns.amount)` — an ``SQLColumn``, the name of a column.
/// - `\(identifier: name)` — any name, quoted as an identifier.
/// - `\(list: values)` — `?, ?, ?`, one bind per value, for `IN (…)`.
/// - `\(raw: text)` — text as it is, for trusted constants only (never input).
///
/// Fragments compose with `+` and `joined(separator:)` on a sequence of them.
public struct SQL: Sendable, Hashable {
    /// Text and values in the order they are written.
    enum Piece: Sendable, Hashable {
        case text(String)
        case value(SQLValue)
    }

    var pieces: [Piece] = []

    /// An empty statement, to build on with `+` and `+=`.
    public init() {}

    /// Trusted text as it is, without binds: a statement from a constant (a migration's
    /// statement, a `BEGIN`). Never text that came from input; interpolate input instead.
    /// - Parameter text: the SQL text.
    public init(raw text: String) {
        append(text: text)
    }

    /// Whether it has neither text nor values.
    public var isEmpty: Bool { pieces.isEmpty }

    /// The values bound, in order.
    public var binds: [SQLValue] {
        pieces.compactMap { piece in
            if case .value(let value) = piece { return value }
            return nil
        }
    }

    mutating func append(text: String) {
        guard !text.isEmpty else { return }
        // Adjacent text joins, so that fragments built either way compare equal.
        if case .text(var last)? = pieces.last {
            // Taken out and put back, so that the text grows in place rather than as a new copy.
            pieces.removeLast()
            last += text
            pieces.append(.text(last))
        } else {
            pieces.append(.text(text))
        }
    }

    @usableFromInline mutating func append(value: SQLValue) {
        pieces.append(.value(value))
    }

    mutating func append(_ other: SQL) {
        for piece in other.pieces {
            switch piece {
            case .text(let text): append(text: text)
            case .value(let value): append(value: value)
            }
        }
    }

    /// The two fragments one after the other, their binds in order.
    /// - Parameters:
    ///   - lhs: the first fragment.
    ///   - rhs: the fragment that follows it.
    /// - Returns: the fragments joined, with no space added between them.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var joined = lhs
        joined.append(rhs)
        return joined
    }

    /// Appends a fragment, its binds after the ones already there.
    /// - Parameters:
    ///   - lhs: the fragment appended to.
    ///   - rhs: the fragment appended.
    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.append(rhs)
    }
}

// MARK: - Rendering

extension SQL {
    /// A statement as one database receives it: its text with placeholders, and the values.
    public struct Rendered: Sendable, Hashable {
        /// The statement's text, with the dialect's placeholders.
        public let text: String
        /// The values for the placeholders, in order.
        public let binds: [SQLValue]
    }

    /// The statement as `dialect` takes it: each value as a placeholder, `?` on SQLite and
    /// `$1, $2, …` on PostgreSQL, numbered in order of appearance.
    ///
    /// ```swift
    /// let statement: SQL = "SELECT * FROM t WHERE a = \(1) AND b = \("x")"
    /// statement.rendered(for: .postgres).text  // SELECT * FROM t WHERE a = $1 AND b = $2
    /// ```
    /// - Parameter dialect: the database that runs it.
    /// - Returns: the text and the values.
    public func rendered(for dialect: SQLDialect) -> Rendered {
        var length = 0
        for piece in pieces {
            if case .text(let literal) = piece { length += literal.utf8.count } else { length += 4 }
        }
        // Built as bytes: appending to a String piece by piece costs more than the scan it replaces.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var binds: [SQLValue] = []
        binds.reserveCapacity(pieces.count / 2 + 1)
        for piece in pieces {
            switch piece {
            case .text(let literal):
                bytes.append(contentsOf: literal.utf8)
            case .value(let value):
                binds.append(value)
                switch dialect {
                case .sqlite: bytes.append(UInt8(ascii: "?"))
                case .postgres:
                    bytes.append(UInt8(ascii: "$"))
                    bytes.append(contentsOf: String(binds.count).utf8)
                }
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return Rendered(text: text, binds: binds)
    }
}

extension SQL: CustomStringConvertible {
    /// The text as SQLite takes it, with `?` where values go; the values are left out, as they
    /// may be personal data.
    public var description: String { rendered(for: .sqlite).text }
}

// MARK: - Joining

extension Sequence where Element == SQL {
    /// The fragments one after the other with `separator` between them, their binds in order:
    /// `conditions.joined(separator: " AND ")`.
    /// - Parameter separator: the fragment between two elements.
    /// - Returns: the joined fragment; empty when the sequence is.
    public func joined(separator: SQL = SQL()) -> SQL {
        var joined = SQL()
        var first = true
        for fragment in self {
            if !first { joined.append(separator) }
            joined.append(fragment)
            first = false
        }
        return joined
    }
}

extension SQL {
    /// Splits `count` rows among multi-row statements of at most `largest` rows each, in order.
    ///
    /// With `powersOfTwoAbove`, a run of more rows than that has a power of two for its size,
    /// from the largest that fits down, and the last few rows go in one run (13 rows above 8:
    /// 8, 5), so that however many rows come a statement has one of a few texts: a connection
    /// keeps each text it prepared (``SQLiteConnection``), and rows gathered from many writes
    /// would otherwise give it a new text for each count.
    /// - Parameters:
    ///   - count: how many rows.
    ///   - largest: the most rows in one statement.
    ///   - powersOfTwoAbove: the most rows a run may have without being a power of two.
    /// - Returns: the runs' ranges of row indices, covering `0..<count`.
    public static func rowRuns(_ count: Int, largest: Int, powersOfTwoAbove: Int? = nil) -> [Range<Int>] {
        let limit = max(1, largest)
        var runs: [Range<Int>] = []
        var start = 0
        while start < count {
            var size = min(limit, count - start)
            if let small = powersOfTwoAbove, size > small {
                // The largest power of two that is at most `size`.
                size = 1 << (Int.bitWidth - 1 - size.leadingZeroBitCount)
            }
            runs.append(start..<(start + size))
            start += size
        }
        return runs
    }
}
