extension SQL: ExpressibleByStringInterpolation {
    /// A statement without values, as written.
    /// - Parameter value: the SQL text.
    public init(stringLiteral value: String) {
        self.init(raw: value)
    }

    /// A statement whose interpolations are binds or named fragments (see ``SQL``).
    /// - Parameter stringInterpolation: the literal's pieces.
    public init(stringInterpolation: StringInterpolation) {
        self = stringInterpolation.sql
    }

    /// The pieces of an ``SQL`` literal: its text, and for each interpolation a bind or a
    /// fragment of the kind its label names.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        @usableFromInline var sql = SQL()

        /// Starts an empty statement.
        /// - Parameters:
        ///   - literalCapacity: the length of the literal's text.
        ///   - interpolationCount: how many interpolations it has.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Appends the literal's text as it is.
        /// - Parameter literal: the text between interpolations.
        public mutating func appendLiteral(_ literal: String) {
            sql.append(text: literal)
        }

        /// Binds a value: `\(amount)`, `\(reference)` (nil binds NULL).
        /// - Parameter value: an integer, a text, a flag, an ``SQLValue`` or an optional of one.
        @inlinable
        public mutating func appendInterpolation(_ value: some SQLValueConvertible) {
            sql.append(value: value.sqlValue)
        }

        /// Binds a value, or NULL when it is nil.
        /// - Parameter value: an optional integer, text, flag or ``SQLValue``.
        @inlinable
        public mutating func appendInterpolation<Value: SQLValueConvertible>(_ value: Value?) {
            sql.append(value: value?.sqlValue ?? .null)
        }

        /// Binds a code of a closed set by its raw string: `\(LedgerBucket.balance)`.
        /// - Parameter code: a value whose raw value is its stable string.
        @inlinable
        public mutating func appendInterpolation<Code: RawRepresentable>(_ code: Code) where Code.RawValue == String {
            sql.append(value: .text(code.rawValue))
        }

        /// Binds a code by its raw string, or NULL when it is nil.
        /// - Parameter code: a value whose raw value is its stable string, or nil.
        @inlinable
        public mutating func appendInterpolation<Code: RawRepresentable>(_ code: Code?) where Code.RawValue == String {
            sql.append(value: code.map { .text($0.rawValue) } ?? .null)
        }

        /// Inserts another statement fragment with its binds, in place.
        /// - Parameter fragment: the fragment.
        public mutating func appendInterpolation(_ fragment: SQL) {
            sql.append(fragment)
        }

        /// Inserts a column's name (see ``SQLColumn/sql``).
        /// - Parameter column: the column.
        public mutating func appendInterpolation(_ column: SQLColumn) {
            sql.append(text: column.sql)
        }

        /// Inserts any name as a quoted identifier, `"name"`, its quotes doubled: for a table or
        /// column whose name is chosen at run time.
        /// - Parameter name: the identifier.
        public mutating func appendInterpolation(identifier name: String) {
            sql.append(text: SQLColumn.quoted(name))
        }

        /// Binds each value, separated by commas, for `IN (\(list: ids))`. An empty list is
        /// `NULL`, which no value is `IN` — and, with SQL's NULL logic, no value is `NOT IN`
        /// either: test for an empty list before writing `NOT IN`.
        /// - Parameter values: the values.
        @inlinable
        public mutating func appendInterpolation<Values: Sequence>(list values: Values) where Values.Element: SQLValueConvertible {
            // A closure, not `\.sqlValue`: a key path of a generic type is built anew at each call.
            appendList(values.map { $0.sqlValue })
        }

        /// Binds each code by its raw string, separated by commas, for `IN (\(list: statuses))`
        /// (empty: `NULL`, as for values).
        /// - Parameter codes: the codes.
        @inlinable
        public mutating func appendInterpolation<Codes: Sequence>(list codes: Codes)
        where Codes.Element: RawRepresentable, Codes.Element.RawValue == String {
            appendList(codes.map { .text($0.rawValue) })
        }

        /// Inserts text as it is. Only for trusted constants, such as a sort order chosen from
        /// two literals; never for input, which is bound instead.
        /// - Parameter text: the SQL text.
        public mutating func appendInterpolation(raw text: String) {
            sql.append(text: text)
        }

        @usableFromInline
        mutating func appendList(_ values: [SQLValue]) {
            guard !values.isEmpty else { return sql.append(text: "NULL") }
            for (index, value) in values.enumerated() {
                if index > 0 { sql.append(text: ", ") }
                sql.append(value: value)
            }
        }
    }
}
