import Foundation
import TallyCore
import TallySQL
import TallyTestSupport
import Testing

@testable import TallyKit

/// The device ledger's tables speak TallyCore's vocabulary: every kind, bucket and reservation
/// status the server knows is accepted, and a word outside it is refused by the database.
@Suite struct OnDeviceLedgerSchemaTests {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static func insertEntry(_ database: LocalDatabase, kind: String, bucket: String) async throws(TallyError) {
        try await database.write { executor in
            try await executor.execute(
                "INSERT INTO ledger_entries (currency, bucket, kind, amount, created_at) VALUES ('credits', ?, ?, 1, 0)",
                [.text(bucket), .text(kind)])
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func entriesTakeEveryKindAndBucketOfTheVocabularyAndNothingElse() async throws {
        let device = try await Device()
        let database = try await device.database()
        _ = try await device.onDeviceLedger(database)
        for kind in LedgerEntryKind.all {
            try await Self.insertEntry(database, kind: kind.rawValue, bucket: LedgerBucket.balance.rawValue)
        }
        for bucket in LedgerBucket.all {
            try await Self.insertEntry(database, kind: LedgerEntryKind.spend.rawValue, bucket: bucket.rawValue)
        }
        // The words the device once used for itself are not in the vocabulary.
        for kind in ["grant", "revoke", "debt"] {
            await #expect(throws: TallyError.self) { try await Self.insertEntry(database, kind: kind, bucket: LedgerBucket.balance.rawValue) }
        }
        await #expect(throws: TallyError.self) { try await Self.insertEntry(database, kind: LedgerEntryKind.spend.rawValue, bucket: "lots") }
        let count = try await database.read { executor in try await executor.query("SELECT COUNT(*) AS n FROM ledger_entries", []).first?.int(SQLColumn("n")) }
        #expect(count == Int64(LedgerEntryKind.all.count + LedgerBucket.all.count))
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
}
