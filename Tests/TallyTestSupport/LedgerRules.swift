import Foundation
public import TallyCore
public import TallyLedger
public import TallySQL
public import Testing

/// The credit ledger's own suite: the rules every host of ``CreditLedger`` relies on, written
/// once and run on each database and schema that hosts it (the device's SQLite, the server's
/// SQLite and PostgreSQL). Each rule is given a fresh ``Bench``; after every write the bench
/// checks that positions, entries and lots still agree (``CreditLedger/consistent(_:holder:)``).
///
/// ```swift
/// @Test(arguments: LedgerRules.all) func rule(_ rule: LedgerRules.Rule) async throws {
///     try await rule.check(LedgerRules.Bench(database: database, schema: schema, holder: "device"))
/// }
/// ```
public enum LedgerRules: Sendable {
    /// One rule: a name for the test's arguments and the check.
    public struct Rule: Sendable, CustomTestStringConvertible {
        public let name: String
        public let check: @Sendable (Bench) async throws -> Void
        public var testDescription: String { name }
    }

    /// A database whose schema has the ledger's fragment, and a holder in it.
    public struct Bench: Sendable {
        public let database: any SQLDatabase
        public let schema: LedgerSchema
        public let holder: String

        /// A bench over `database`, whose holder `holder` may hold credits (on the server, a user that exists).
        public init(database: any SQLDatabase, schema: LedgerSchema, holder: String) {
            self.database = database
            self.schema = schema
            self.holder = holder
        }

        /// Runs `work` in one write at `now`, with the observer given, then checks the ledger is consistent.
        @discardableResult
        public func write<T: Sendable>(
            now: Int64 = 1_000, observer: (any LedgerObserver)? = nil, _ work: @escaping @Sendable (CreditLedger) async throws -> T
        ) async throws -> T {
            let schema = schema
            let result = try await database.write { executor in
                try await work(CreditLedger(executor, schema: schema, now: now, observer: observer))
            }
            let holder = holder
            #expect(try await database.read { executor in try await CreditLedger.consistent(executor, holder: holder) })
            return result
        }

        public func position(_ currency: String) async throws -> CreditPosition {
            let holder = holder
            return try await database.read { executor in try await CreditLedger.position(executor, holder, currency) }
        }

        /// What is left of each of the holder's lots in `currency`, oldest first.
        public func remaining(_ currency: String) async throws -> [Int64] {
            let holder = holder
            return try await database.read { executor in
                try await executor.query("SELECT remaining FROM lots WHERE user_id = \(holder) AND currency = \(currency) ORDER BY id")
                    .map { try $0.int(SQLColumn("remaining")) }
            }
        }

        /// The kinds and amounts of the holder's entries in `currency`, in order.
        public func entries(_ currency: String) async throws -> [String] {
            let holder = holder
            return try await database.read { executor in
                try await executor.query("SELECT kind, amount FROM ledger_entries WHERE user_id = \(holder) AND currency = \(currency) ORDER BY id")
                    .map { "\(try $0.text(SQLColumn("kind"))) \(try $0.int(SQLColumn("amount")))" }
            }
        }

        /// Where takes are kept: each take of an operation, as `kind lot-index amount`, lots
        /// counted from 0 in their order.
        public func takes(_ operation: String) async throws -> [String] {
            let holder = holder
            return try await database.read { executor in
                try await executor.query(
                    """
                    SELECT t.kind, t.amount, (SELECT COUNT(*) FROM lots o WHERE o.user_id = l.user_id AND o.currency = l.currency AND o.id < l.id) AS lot
                    FROM lot_takes t JOIN lots l ON l.id = t.lot_id WHERE t.operation_id = \(operation) AND l.user_id = \(holder) ORDER BY t.id
                    """
                ).map { "\(try $0.text(SQLColumn("kind"))) \(try $0.int(SQLColumn("lot"))) \(try $0.int(SQLColumn("amount")))" }
            }
        }
    }

    /// What a host's observer heard.
    public final class Heard: LedgerObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var _entries: [String] = []
        private var _repaid: [Int64] = []

        public init() {}

        public var entries: [String] { lock.withLock { _entries } }
        public var repaid: [Int64] { lock.withLock { _repaid } }

        public func ledgerEntryWritten(kind: LedgerEntryKind, bucket: LedgerBucket, currency: String, amount: Int64) {
            lock.withLock { _entries.append("\(kind.rawValue) \(amount)") }
        }

        public func debtRepaid(holder: String, currency: String, amount: Int64) async throws {
            lock.withLock { _repaid.append(amount) }
        }
    }

    /// Every rule.
    public static let all: [Rule] = [
        Rule(name: "spending takes the lot written first, whatever comes later") { bench in
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 5, kind: .purchase, transaction: "t1") }
            try await bench.write(now: 2_000) { try await $0.grant(bench.holder, "credits", amount: 10, kind: .purchase, transaction: "t2") }
            #expect(try await bench.write { try await $0.spend(bench.holder, "credits", amount: 7, operation: "s1") })
            #expect(try await bench.remaining("credits") == [0, 8])
            #expect(try await bench.position("credits") == CreditPosition(available: 8, held: 0, debt: 0))
            if bench.schema.recordsTakes { #expect(try await bench.takes("s1") == ["spend 0 5", "spend 1 2"]) }
            #expect(try await bench.entries("credits") == ["purchase 5", "purchase 10", "spend -7"])
        },
        Rule(name: "a spend of more than is available changes nothing") { bench in
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 3, kind: .purchase) }
            #expect(try await !bench.write { try await $0.spend(bench.holder, "credits", amount: 4, operation: "s1") })
            #expect(try await !bench.write { try await $0.spend(bench.holder, "other", amount: 1, operation: "s2") })
            #expect(try await bench.position("credits") == CreditPosition(available: 3, held: 0, debt: 0))
            #expect(try await bench.entries("credits") == ["purchase 3"])
        },
        Rule(name: "a spend across more than 64 lots takes them all in order") { bench in
            try await bench.write { ledger in
                for index in 0..<70 { try await ledger.grant(bench.holder, "seconds", amount: 2, kind: .purchase, transaction: "t\(index)") }
            }
            #expect(try await bench.write { try await $0.spend(bench.holder, "seconds", amount: 135, operation: "long") })
            #expect(try await bench.remaining("seconds") == Array(repeating: 0, count: 67) + [1, 2, 2])
            if bench.schema.recordsTakes { #expect(try await bench.takes("long").count == 68) }
        },
        Rule(name: "a hold moves units to held; settling spends what was used and returns the rest") { bench in
            try await bench.write { try await $0.grant(bench.holder, "seconds", amount: 100, kind: .purchase) }
            #expect(try await bench.write { try await $0.hold(bench.holder, "seconds", amount: 60) })
            #expect(try await bench.position("seconds") == CreditPosition(available: 40, held: 60, debt: 0))
            #expect(try await !bench.write { try await $0.hold(bench.holder, "seconds", amount: 41) })
            try await bench.write { try await $0.settleHold(bench.holder, "seconds", held: 60, used: 45, operation: "r1", reference: "call") }
            #expect(try await bench.position("seconds") == CreditPosition(available: 55, held: 0, debt: 0))
            #expect(try await bench.remaining("seconds") == [55])
            #expect(try await bench.entries("seconds") == ["purchase 100", "spend -45"])
        },
        Rule(name: "a refund takes back what is left of its lot and turns what was spent into debt") { bench in
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 10, kind: .purchase, transaction: "t1") }
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 5, kind: .purchase, transaction: "t2") }
            #expect(try await bench.write { try await $0.spend(bench.holder, "credits", amount: 12, operation: "s1") })
            let taken = try await bench.write { ledger in
                var taken: [Int64] = []
                for lot in try await ledger.unrevokedLots(transaction: "t2") {
                    let result = try await ledger.clawBack(lotID: lot.id, holder: bench.holder, currency: lot.currency, transaction: "t2")
                    taken += [result.removed, result.debt]
                }
                return taken
            }
            #expect(taken == [3, 2])
            #expect(try await bench.position("credits") == CreditPosition(available: 0, held: 0, debt: 2))
            // Taken back once: a second refund of the same transaction finds nothing left to take.
            #expect(try await bench.write { try await $0.unrevokedLots(transaction: "t2") }.isEmpty)
            #expect(try await bench.entries("credits") == ["purchase 10", "purchase 5", "spend -12", "refund -3", "refund_debt -2"])
        },
        Rule(name: "units held during a refund stay with their hold, and what they return repays the debt") { bench in
            let heard = Heard()
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 10, kind: .purchase, transaction: "t1") }
            #expect(try await bench.write { try await $0.hold(bench.holder, "credits", amount: 8) })
            try await bench.write { ledger in
                for lot in try await ledger.unrevokedLots(transaction: "t1") {
                    try await ledger.clawBack(lotID: lot.id, holder: bench.holder, currency: lot.currency, transaction: "t1")
                }
            }
            #expect(try await bench.position("credits") == CreditPosition(available: 0, held: 8, debt: 8))
            try await bench.write(observer: heard) {
                try await $0.settleHold(bench.holder, "credits", held: 8, used: 3, operation: "r1", reference: nil)
            }
            #expect(try await bench.position("credits") == CreditPosition(available: 0, held: 0, debt: 3))
            #expect(heard.repaid == [5])
            #expect(try await bench.remaining("credits") == [0])
            if bench.schema.recordsTakes { #expect(try await bench.takes("r1") == ["spend 0 3", "repay 0 5"]) }
        },
        Rule(name: "a grant repays debt first and the host hears of it") { bench in
            let heard = Heard()
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 4, kind: .purchase, transaction: "t1") }
            #expect(try await bench.write { try await $0.spend(bench.holder, "credits", amount: 4, operation: "s1") })
            try await bench.write {
                try await $0.clawBack(lotID: $0.unrevokedLots(transaction: "t1")[0].id, holder: bench.holder, currency: "credits", transaction: "t1")
            }
            let repaid = try await bench.write(observer: heard) {
                try await $0.grant(bench.holder, "credits", amount: 10, kind: .purchase, transaction: "t2")
            }
            #expect(repaid == 4)
            #expect(heard.repaid == [4])
            #expect(heard.entries == ["purchase 10"])
            #expect(try await bench.position("credits") == CreditPosition(available: 6, held: 0, debt: 0))
            #expect(try await bench.remaining("credits") == [0, 6])
        },
        Rule(name: "each currency keeps its own position and lots") { bench in
            try await bench.write { ledger in
                try await ledger.grant(bench.holder, "credits", amount: 5, kind: .purchase, transaction: "t1")
                try await ledger.grant(bench.holder, "seconds", amount: 100, kind: .purchase, transaction: "t1")
            }
            #expect(try await bench.write { try await $0.spend(bench.holder, "seconds", amount: 30, operation: "s1") })
            #expect(try await bench.write { try await $0.hold(bench.holder, "credits", amount: 2) })
            #expect(try await bench.position("credits") == CreditPosition(available: 3, held: 2, debt: 0))
            #expect(try await bench.position("seconds") == CreditPosition(available: 70, held: 0, debt: 0))
            #expect(try await bench.remaining("credits") == [5])
            #expect(try await bench.remaining("seconds") == [70])
            #expect(try await bench.write { try await $0.unrevokedLots(transaction: "t1") }.map(\.currency) == ["credits", "seconds"])
        },
        Rule(name: "a refund of a lot that repaid debt when granted owes what the lot no longer held") { bench in
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 4, kind: .purchase, transaction: "t1") }
            #expect(try await bench.write { try await $0.spend(bench.holder, "credits", amount: 4, operation: "s1") })
            try await bench.write { ledger in
                try await ledger.clawBack(lotID: ledger.unrevokedLots(transaction: "t1")[0].id, holder: bench.holder, currency: "credits", transaction: "t1")
            }
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 10, kind: .purchase, transaction: "t2") }
            #expect(try await bench.remaining("credits") == [0, 6])
            let taken = try await bench.write { ledger in
                try await ledger.clawBack(lotID: ledger.unrevokedLots(transaction: "t2")[0].id, holder: bench.holder, currency: "credits", transaction: "t2")
            }
            #expect(taken.removed == 6 && taken.debt == 4)
            #expect(try await bench.position("credits") == CreditPosition(available: 0, held: 0, debt: 4))
        },
        Rule(name: "a grant of nothing or a hold settled with more than it held is refused, and changes nothing") { bench in
            await #expect(throws: LedgerInconsistency.self) {
                try await bench.write { try await $0.grant(bench.holder, "credits", amount: 0, kind: .purchase) }
            }
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 5, kind: .purchase) }
            #expect(try await bench.write { try await $0.hold(bench.holder, "credits", amount: 2) })
            await #expect(throws: LedgerInconsistency.self) {
                try await bench.write { try await $0.settleHold(bench.holder, "credits", held: 2, used: 3, operation: "r1", reference: nil) }
            }
            #expect(try await bench.position("credits") == CreditPosition(available: 3, held: 2, debt: 0))
        },
        Rule(name: "entries are append-only") { bench in
            try await bench.write { try await $0.grant(bench.holder, "credits", amount: 1, kind: .purchase) }
            await #expect(throws: (any Error).self) {
                try await bench.database.write { executor in try await executor.execute("UPDATE ledger_entries SET amount = 2") }
            }
            await #expect(throws: (any Error).self) {
                try await bench.database.write { executor in try await executor.execute("DELETE FROM ledger_entries") }
            }
            #expect(try await bench.entries("credits") == ["purchase 1"])
        },
    ]
}
