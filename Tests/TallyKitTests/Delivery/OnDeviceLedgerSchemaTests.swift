import Foundation
import TallyCore
import TallyLedger
import TallySQL
import TallyTestSupport
import Testing

@testable import TallyKit

/// The device ledger's tables: the ledger's fragment shared with the server, in TallyCore's
/// vocabulary, and the conversion of a database that `0001_device` made into it.
@Suite struct OnDeviceLedgerSchemaTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static func insertEntry(_ database: LocalDatabase, bucket: String) async throws(TallyError) {
        try await database.write { executor in
            try await executor.execute(
                "INSERT INTO ledger_entries (user_id, currency, bucket, kind, amount, created_at) VALUES ('device', 'credits', ?, 'spend', 1, 0)",
                [.text(bucket)])
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func entriesTakeEveryBucketOfTheVocabularyAndNothingElse() async throws {
        let device = try await Device()
        let database = try await device.database()
        _ = try await device.onDeviceLedger(database)
        for bucket in LedgerBucket.all { try await Self.insertEntry(database, bucket: bucket.rawValue) }
        // The buckets the device once kept for itself are positions' columns now.
        for bucket in ["held", "debt", "lots"] {
            await #expect(throws: TallyError.self) { try await Self.insertEntry(database, bucket: bucket) }
        }
        let count = try await database.read { executor in try await executor.query("SELECT COUNT(*) AS n FROM ledger_entries", []).first?.int(SQLColumn("n")) }
        #expect(count == Int64(LedgerBucket.all.count))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func reservationsTakeEveryStatusOfTheVocabularyAndNothingElse() async throws {
        let device = try await Device()
        let database = try await device.database()
        _ = try await device.onDeviceLedger(database)
        func insert(_ id: String, status: String) async throws(TallyError) {
            try await database.write { executor in
                try await executor.execute(
                    """
                    INSERT INTO ledger_reservations (id, idempotency_key, currency, amount, status, expires_at, created_at)
                    VALUES (?, ?, 'seconds', 60, ?, 0, 0)
                    """,
                    [.text(id), .text(id), .text(status)])
            }
        }
        for status in ReservationStatus.all { try await insert("res-\(status)", status: status.rawValue) }
        await #expect(throws: TallyError.self) { try await insert("res-open", status: "open") }
    }

    /// A history as `0001_device` kept it, for `report.career`: t1 (10) and t2 (5) bought, 12
    /// spent (10 from t1, 2 from t2), t2 refunded (3 removed, 2 owed), t3 (4) bought and 2 of it
    /// repaying the debt, then 2 held by a reservation.
    static let history = [
        """
        INSERT INTO ledger_purchases (transaction_id, original_transaction_id, product_id, quantity, purchase_date, evidence_kind, evidence,
            recorded_at, revoked_at)
        VALUES ('t1', 't1', 'p', 1, 100, 'jws', 'x', 1000, NULL), ('t2', 't2', 'p', 1, 50, 'jws', 'x', 2000, 3000),
            ('t3', 't3', 'p', 1, 3500, 'jws', 'x', 4000, NULL)
        """,
        """
        INSERT INTO ledger_lots (id, transaction_id, currency, amount, acquired_at)
        VALUES (1, 't1', 'report.career', 10, 100), (2, 't2', 'report.career', 5, 50), (3, 't3', 'report.career', 4, 3500)
        """,
        """
        INSERT INTO ledger_entries (currency, bucket, kind, amount, lot_id, transaction_id, operation_id, reference, created_at) VALUES
            ('report.career', 'balance', 'purchase', 10, 1, 't1', NULL, NULL, 1000),
            ('report.career', 'balance', 'purchase', 5, 2, 't2', NULL, NULL, 2000),
            ('report.career', 'balance', 'spend', -10, 1, 't1', 's1', 'profile-1', 2500),
            ('report.career', 'balance', 'spend', -2, 2, 't2', 's1', 'profile-1', 2500),
            ('report.career', 'balance', 'refund', -3, 2, 't2', NULL, NULL, 3000),
            ('report.career', 'debt', 'refund_debt', 2, NULL, 't2', NULL, NULL, 3000),
            ('report.career', 'balance', 'purchase', 4, 3, 't3', NULL, NULL, 4000),
            ('report.career', 'balance', 'repay', -2, 3, 't3', NULL, NULL, 4000),
            ('report.career', 'debt', 'repay', -2, NULL, 't3', NULL, NULL, 4000),
            ('report.career', 'held', 'hold', 2, NULL, NULL, 'res_1', NULL, 5000)
        """,
        "INSERT INTO ledger_balances (currency, available, held, debt) VALUES ('report.career', 0, 2, 0)",
        "INSERT INTO ledger_spends (idempotency_key, currency, amount, reference, created_at) VALUES ('s1', 'report.career', 12, 'profile-1', 2500)",
        """
        INSERT INTO ledger_reservations (id, idempotency_key, currency, amount, status, expires_at, created_at)
        VALUES ('res_1', 'k1', 'report.career', 2, 'held', 9000000000000, 5000)
        """,
    ]

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aDatabaseOfTheFirstSchemaKeepsItsCreditsAndHistoryInTheSharedLedger() async throws {
        let device = try await Device()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.converted(Self.history, in: folder)
        let ledger = try await device.onDeviceLedger(database)
        #expect(try await ledger.balancesMatchEntries())
        let balance = try #require(try await ledger.localAccount()?.balance("report.career"))
        #expect([balance.available, balance.held, balance.debt] == [0, 2, 0])
        let history = try await ledger.creditHistory(currency: "report.career")
        // Listed by purchase date, as before; spent in the order delivered (decision 0032).
        #expect(history.acquisitions.map { "\($0.transactionID ?? "") \($0.amount) \($0.remaining ?? -1)" } == ["t2 5 0", "t1 10 0", "t3 4 2"])
        #expect(history.acquisitions.map { JournalTime.millis($0.acquiredAt) } == [50, 100, 3500])
        #expect(history.consumptions.map(\.id) == ["s1"])
        #expect(history.consumptions.first?.sources.map { "\($0.transactionID ?? "") \($0.amount)" } == ["t1 10", "t2 2"])
        let entries = try await database.read { executor in
            try await executor.query("SELECT kind, amount FROM ledger_entries ORDER BY id", []).map {
                "\(try $0.text(SQLColumn("kind"))) \(try $0.int(SQLColumn("amount")))"
            }
        }
        // What the server would have written: holds and repayments change nothing of available + held − debt.
        #expect(entries == ["purchase 10", "purchase 5", "spend -10", "spend -2", "refund -3", "refund_debt -2", "purchase 4"])
        let revoked = try await database.read { executor in
            try await executor.query("SELECT revoked FROM lots ORDER BY id", []).map { try $0.int(SQLColumn("revoked")) }
        }
        #expect(revoked == [0, 1, 0])

        // The reservation made before goes on in the new tables.
        let committed = try await ledger.commit(reservationID: "res_1", used: 1)
        #expect([committed.balance.available, committed.balance.held] == [1, 0])
        #expect(try await ledger.creditHistory(currency: "report.career").consumptions.last?.sources.map(\.transactionID) == ["t3"])
        #expect(try await ledger.balancesMatchEntries())
    }

    /// A database `0001_device` made and `history` filled, opened as the device opens it now.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static func converted(_ history: [String], in folder: TemporaryFolder) async throws -> LocalDatabase {
        let path = folder.path("tally.sqlite")
        let before = try SQLiteDatabase(path: path)
        try await before.migrate([LocalDatabase.device])
        try await before.write { executor in for statement in history { try await executor.execute(SQL(raw: statement)) } }
        await before.close()
        return try await LocalDatabase(path: path)
    }

    /// A second history, as `0001_device` kept it: t1 bought twice over (10 credits and 120
    /// seconds), 100 seconds held, t1 refunded while they were held (the free 10 credits and 20
    /// seconds removed, 100 seconds owed), the hold released (repaying the debt out of t1's
    /// seconds), and t9 refunded without ever being delivered.
    static let heldThroughARefund = [
        """
        INSERT INTO ledger_purchases (transaction_id, original_transaction_id, product_id, quantity, purchase_date, evidence_kind, evidence,
            recorded_at, revoked_at)
        VALUES ('t1', 't1', 'p', 2, 900, 'jws', 'x', 1000, 3000), ('t9', 't9', 'p', 1, 800, 'jws', 'x', 5000, 4900)
        """,
        "INSERT INTO ledger_lots (id, transaction_id, currency, amount, acquired_at) VALUES (1, 't1', 'credits', 10, 900), (2, 't1', 'seconds', 120, 900)",
        """
        INSERT INTO ledger_entries (currency, bucket, kind, amount, lot_id, transaction_id, operation_id, reference, created_at) VALUES
            ('credits', 'balance', 'purchase', 10, 1, 't1', NULL, NULL, 1000),
            ('seconds', 'balance', 'purchase', 120, 2, 't1', NULL, NULL, 1000),
            ('seconds', 'held', 'hold', 100, NULL, NULL, 'res_a', NULL, 2000),
            ('credits', 'balance', 'refund', -10, 1, 't1', NULL, NULL, 3000),
            ('seconds', 'balance', 'refund', -20, 2, 't1', NULL, NULL, 3000),
            ('seconds', 'debt', 'refund_debt', 100, NULL, 't1', NULL, NULL, 3000),
            ('seconds', 'held', 'release', -100, NULL, NULL, 'res_a', NULL, 4000),
            ('seconds', 'balance', 'repay', -100, 2, 't1', 'res_a', NULL, 4000),
            ('seconds', 'debt', 'repay', -100, NULL, NULL, 'res_a', NULL, 4000)
        """,
        "INSERT INTO ledger_balances (currency, available, held, debt) VALUES ('credits', 0, 0, 0), ('seconds', 0, 0, 0)",
        """
        INSERT INTO ledger_reservations (id, idempotency_key, currency, amount, status, expires_at, created_at)
        VALUES ('res_a', 'ka', 'seconds', 100, 'released', 9000000000000, 2000)
        """,
    ]

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func aHoldThroughARefundAndAnUndeliveredRefundConvertAsTheServerWouldHaveWrittenThem() async throws {
        let device = try await Device()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Self.converted(Self.heldThroughARefund, in: folder)
        let ledger = try await device.onDeviceLedger(database)
        #expect(try await ledger.balancesMatchEntries())
        let account = try #require(try await ledger.localAccount())
        #expect(account.balances.map { "\($0.currency) \($0.available) \($0.held) \($0.debt)" } == ["credits 0 0 0", "seconds 0 0 0"])
        let rows = try await database.read { executor in
            (
                entries: try await executor.query("SELECT currency, kind, amount FROM ledger_entries ORDER BY id", []).map {
                    "\(try $0.text(SQLColumn("currency"))) \(try $0.text(SQLColumn("kind"))) \(try $0.int(SQLColumn("amount")))"
                },
                lots: try await executor.query("SELECT currency, granted, remaining, revoked FROM lots ORDER BY id", []).map {
                    "\(try $0.text(SQLColumn("currency"))) \(try $0.int(SQLColumn("granted"))) \(try $0.int(SQLColumn("remaining"))) \(try $0.int(SQLColumn("revoked")))"
                },
                takes: try await executor.query("SELECT lot_id, kind, amount, operation_id FROM lot_takes ORDER BY id", []).map {
                    "\(try $0.int(SQLColumn("lot_id"))) \(try $0.text(SQLColumn("kind"))) \(try $0.int(SQLColumn("amount"))) \(try $0.text(SQLColumn("operation_id")))"
                }
            )
        }
        #expect(rows.entries == ["credits purchase 10", "seconds purchase 120", "credits refund -10", "seconds refund -20", "seconds refund_debt -100"])
        #expect(rows.lots == ["credits 10 0 1", "seconds 120 0 1"])
        #expect(rows.takes == ["2 repay 100 res_a"])
        #expect(try await ledger.creditHistory(currency: nil).consumptions.isEmpty)
    }
}
