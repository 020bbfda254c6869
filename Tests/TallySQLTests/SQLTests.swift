import TallySQL
import Testing

/// Statements as written with interpolation, and as each database receives them.
@Suite struct SQLTests {
    /// A code of a closed set, as the vocabulary's `StableCode`s are: a struct over a raw string.
    struct Bucket: RawRepresentable, Hashable, Sendable {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        static let balance = Self(rawValue: "balance")
        static let held = Self(rawValue: "held")
    }

    @Test func valuesBecomePlaceholdersInOrderOnBothDatabases() {
        let id: Int64 = 7
        let currency = "credits"
        let statement: SQL = "SELECT * FROM lots WHERE id = \(id) AND currency = \(currency) AND open = \(true)"
        #expect(statement.rendered(for: .sqlite).text == "SELECT * FROM lots WHERE id = ? AND currency = ? AND open = ?")
        #expect(statement.rendered(for: .postgres).text == "SELECT * FROM lots WHERE id = $1 AND currency = $2 AND open = $3")
        #expect(statement.rendered(for: .sqlite).binds == [.int(7), .text("credits"), .int(1)])
        #expect(statement.rendered(for: .postgres).binds == [.int(7), .text("credits"), .int(1)])
    }

    @Test func nilBindsNullAndCodesBindTheirRawString() {
        let reference: String? = nil
        let lot: Int64? = 3
        let bucket: Bucket? = nil
        let statement: SQL = "VALUES (\(reference), \(lot), \(Bucket.held), \(bucket), \(SQLValue.null))"
        #expect(statement.rendered(for: .postgres).text == "VALUES ($1, $2, $3, $4, $5)")
        #expect(statement.binds == [.null, .int(3), .text("held"), .null, .null])
    }

    @Test(arguments: ["?", "$1", "it's", "'; DROP TABLE lots; --", "a\"b", "\\'?"])
    func aValueThatLooksLikeSQLStaysOneBind(value: String) {
        let statement: SQL = "SELECT * FROM lots WHERE reference = \(value) AND id = \(1)"
        #expect(statement.rendered(for: .sqlite).text == "SELECT * FROM lots WHERE reference = ? AND id = ?")
        #expect(statement.rendered(for: .postgres).text == "SELECT * FROM lots WHERE reference = $1 AND id = $2")
        #expect(statement.rendered(for: .sqlite).binds == [.text(value), .int(1)])
        #expect(statement.rendered(for: .postgres).binds == [.text(value), .int(1)])
    }

    @Test func textIsNeverScannedForPlaceholders() {
        let statement: SQL = "SELECT '?', '$1', data ? 'key' FROM t WHERE a = \(5) -- why?"
        #expect(statement.rendered(for: .postgres).text == "SELECT '?', '$1', data ? 'key' FROM t WHERE a = $1 -- why?")
        #expect(statement.rendered(for: .sqlite).text == "SELECT '?', '$1', data ? 'key' FROM t WHERE a = ? -- why?")
        #expect(statement.binds == [.int(5)])
    }

    @Test func nestedFragmentsAreNumberedWhereTheyStand() {
        let user = "u1"
        let since: Int64 = 1_000
        let recent: SQL = "created_at >= \(since)"
        let mine: SQL = "user_id = \(user) AND \(recent)"
        let statement: SQL = "SELECT * FROM events WHERE type = \("granted") AND \(mine) ORDER BY seq LIMIT \(10)"
        #expect(
            statement.rendered(for: .postgres).text == "SELECT * FROM events WHERE type = $1 AND user_id = $2 AND created_at >= $3 ORDER BY seq LIMIT $4")
        #expect(statement.binds == [.text("granted"), .text("u1"), .int(1_000), .int(10)])
    }

    @Test func fragmentsComposeWithPlusAndJoined() {
        var statement: SQL = "SELECT id FROM lots"
        let conditions: [SQL] = ["currency = \("gems")", "amount > \(0)", "transaction_id IS NOT NULL"]
        statement += " WHERE " + conditions.joined(separator: " AND ")
        statement = statement + " ORDER BY id"
        #expect(
            statement.rendered(for: .postgres).text
                == "SELECT id FROM lots WHERE currency = $1 AND amount > $2 AND transaction_id IS NOT NULL ORDER BY id")
        #expect(statement.binds == [.text("gems"), .int(0)])
        #expect(([] as [SQL]).joined(separator: " AND ").isEmpty)
    }

    @Test func listsBindEachValue() {
        let ids: [Int64] = [4, 5, 6]
        let statement: SQL = "SELECT * FROM lots WHERE currency = \("gems") AND id IN (\(list: ids)) AND bucket IN (\(list: [Bucket.balance, .held]))"
        #expect(
            statement.rendered(for: .postgres).text
                == "SELECT * FROM lots WHERE currency = $1 AND id IN ($2, $3, $4) AND bucket IN ($5, $6)")
        #expect(statement.rendered(for: .sqlite).text == "SELECT * FROM lots WHERE currency = ? AND id IN (?, ?, ?) AND bucket IN (?, ?)")
        #expect(statement.binds == [.text("gems"), .int(4), .int(5), .int(6), .text("balance"), .text("held")])
        let none: SQL = "SELECT * FROM lots WHERE id IN (\(list: [Int64]()))"
        #expect(none.rendered(for: .postgres).text == "SELECT * FROM lots WHERE id IN (NULL)")
        #expect(none.binds.isEmpty)
    }

    @Test func columnsAndIdentifiersAreNamesNotValues() {
        let amount = SQLColumn("amount")
        let table = "odd \"name\""
        let statement: SQL = "SELECT \(amount), \(SQLColumn("Order")) FROM \(identifier: table) ORDER BY \(raw: "id DESC")"
        #expect(statement.rendered(for: .postgres).text == #"SELECT amount, "Order" FROM "odd ""name""" ORDER BY id DESC"#)
        #expect(statement.binds.isEmpty)
    }

    @Test func equalStatementsCompareEqualHoweverTheyWereBuilt() {
        let built: SQL = "SELECT 1" + " FROM t" + " WHERE a = \(2)"
        let written: SQL = "SELECT 1 FROM t WHERE a = \(2)"
        #expect(built == written)
        #expect(written.description == "SELECT 1 FROM t WHERE a = ?")
    }

    @Test func aFragmentIsUnchangedByTheStatementsBuiltOnIt() {
        let base: SQL = "SELECT 1"
        var grown = base
        grown += " FROM t WHERE a = \(2)"
        let joined = base + " FROM u"
        #expect(base.description == "SELECT 1")
        #expect(grown.description == "SELECT 1 FROM t WHERE a = ?")
        #expect(joined.description == "SELECT 1 FROM u")
    }
}
