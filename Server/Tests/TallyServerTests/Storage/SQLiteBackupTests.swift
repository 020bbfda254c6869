import Foundation
import TallyCore
import TallySQL
import TallyServer
import TallyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Backups of the SQLite database and their restore: what is kept is checked, what is
/// refused leaves nothing behind. (Under a live `tally serve`: `BackupCommandTests`.)
@Suite struct SQLiteBackupTests {
    let folder: URL

    init() throws {
        folder = try TemporaryFolder().url
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    var files: Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []) }

    /// A database file in WAL mode with two users, a purchase and a spend.
    func populated(_ name: String = "live.sqlite") async throws -> Harness {
        let database = try SQLiteDatabase(path: path(name))
        try await database.migrate(Migrations.all)
        let harness = try await Harness(.sqlite, database: database)
        let buyer = try await harness.user()
        _ = try await harness.user()
        let (verified, jws) = try await harness.buy("com.tally.photo.credits.50", for: buyer)
        _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: buyer, orderID: nil)
        _ = try await harness.storage.spending.spend(user: buyer, request: SpendRequest(currency: "credits", amount: 7, idempotencyKey: "s1"))
        return harness
    }

    @Test func aBackupIsACheckedSelfContainedCopy() async throws {
        let harness = try await populated()
        let outcome = try await SQLiteBackup.backup(database: path("live.sqlite"), to: path("backup.sqlite"), replacing: false)
        #expect(outcome.path == path("backup.sqlite"))
        #expect(outcome.bytes > 0)
        #expect(outcome.audit == (try await DatabaseAudit.run(on: harness.database)))
        #expect(outcome.audit.isConsistent && outcome.audit.storeTransactions == 1)
        // One file, with a rollback journal: nothing beside it that SQLite would need.
        #expect(files.filter { $0.hasPrefix("backup") } == ["backup.sqlite"])
        #expect(
            try SQLiteConnection(path: path("backup.sqlite"), readOnly: true).query("PRAGMA journal_mode").first?.optionalText(SQLColumn("journal_mode"))
                == "delete")
        #expect(try await SQLiteBackup.check(file: path("backup.sqlite")) == outcome.audit)

        // An existing backup is replaced only when asked.
        await #expect(throws: DatabaseMaintenanceError(.destinationExists, "")) {
            try await SQLiteBackup.backup(database: path("live.sqlite"), to: path("backup.sqlite"), replacing: false)
        }
        _ = try await harness.user()
        let again = try await SQLiteBackup.backup(database: path("live.sqlite"), to: path("backup.sqlite"), replacing: true)
        #expect(again.audit.users == 3)
        #expect(files.filter { $0.hasPrefix("backup") } == ["backup.sqlite"])
    }

    @Test func aDatabaseThatDoesNotAddUpIsNotBackedUp() async throws {
        let harness = try await populated()
        _ = try await harness.database.write { executor in
            try await executor.execute("UPDATE positions SET available = available + 1 WHERE currency = 'credits'", [])
        }
        await #expect(throws: DatabaseMaintenanceError(.ledgerMismatch, "")) {
            try await SQLiteBackup.backup(database: path("live.sqlite"), to: path("backup.sqlite"), replacing: false)
        }
        #expect(files.allSatisfy { $0.hasPrefix("live.sqlite") }, "\(files)")
    }

    @Test func aRestorePutsTheBackupInPlaceAndKeepsWhatItReplaces() async throws {
        var harness: Harness? = try await populated()
        _ = try await SQLiteBackup.backup(database: path("live.sqlite"), to: path("backup.sqlite"), replacing: false)
        let backupAudit = try await SQLiteBackup.check(file: path("backup.sqlite"))
        // The live database moves on after the backup.
        let late = try await harness!.user()
        let (verified, jws) = try await harness!.buy("com.tally.photo.credits.10", for: late)
        _ = try await harness!.storage.purchases.deliver(verified, jws: jws, presenter: late, orderID: nil)
        let liveAudit = try await DatabaseAudit.run(on: harness!.database)
        #expect(liveAudit.storeTransactions == 2)

        // Into a new file.
        let fresh = try await SQLiteBackup.restore(from: path("backup.sqlite"), to: path("restored.sqlite"), replacing: false, now: Date())
        #expect(fresh.replaced == nil)
        #expect(try await SQLiteBackup.check(file: path("restored.sqlite")) == backupAudit)

        // Over the live database: only when asked, and not while it is open.
        await #expect(throws: DatabaseMaintenanceError(.destinationExists, "")) {
            try await SQLiteBackup.restore(from: path("backup.sqlite"), to: path("live.sqlite"), replacing: false, now: Date())
        }
        await #expect(throws: DatabaseMaintenanceError(.databaseInUse, "")) {
            try await SQLiteBackup.restore(from: path("backup.sqlite"), to: path("live.sqlite"), replacing: true, now: Date())
        }
        #expect(try await DatabaseAudit.run(on: harness!.database) == liveAudit)
        harness = nil  // closes its connections

        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let over = try await SQLiteBackup.restore(from: path("backup.sqlite"), to: path("live.sqlite"), replacing: true, now: now)
        #expect(over.replaced == path("live.sqlite.replaced-20260921T141320Z"))
        #expect(try await SQLiteBackup.check(file: path("live.sqlite")) == backupAudit)
        // What was replaced is whole: the purchase that was only in its WAL is in it.
        #expect(try await SQLiteBackup.check(file: path("live.sqlite.replaced-20260921T141320Z")) == liveAudit)
        #expect(files.filter { $0.contains("restoring") || $0.contains("partial") }.isEmpty, "\(files)")
        // The backup itself is unchanged.
        #expect(try await SQLiteBackup.check(file: path("backup.sqlite")) == backupAudit)
    }

    @Test func aRestoreRefusesWhatIsNotAWholeConsistentTallyDatabase() async throws {
        let harness = try await populated()
        _ = try await SQLiteBackup.backup(database: path("live.sqlite"), to: path("good.sqlite"), replacing: false)
        _ = harness

        // Not SQLite at all.
        try Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: folder.appendingPathComponent("noise.sqlite"))
        // SQLite, but not Tally.
        let other = try SQLiteConnection(path: path("other.sqlite"))
        try other.execute(script: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hello');")
        // Tally, but a balance that does not equal its ledger.
        _ = try await SQLiteBackup.restore(from: path("good.sqlite"), to: path("tampered.sqlite"), replacing: false, now: Date())
        try SQLiteConnection(path: path("tampered.sqlite")).execute(script: "UPDATE positions SET debt = debt + 3")
        // Tally, but damaged: an index that no longer matches its table.
        _ = try await SQLiteBackup.restore(from: path("good.sqlite"), to: path("damaged.sqlite"), replacing: false, now: Date())
        try SQLiteConnection(path: path("damaged.sqlite")).execute(
            script: """
                PRAGMA writable_schema=ON;
                UPDATE sqlite_master SET sql = 'CREATE INDEX ledger_user ON ledger_entries (currency, id)' WHERE name = 'ledger_user';
                """)

        for (name, code) in [
            ("missing.sqlite", DatabaseMaintenanceError.Code.cannotOpen), ("noise.sqlite", .cannotOpen), ("other.sqlite", .notATallyDatabase),
            ("tampered.sqlite", .ledgerMismatch), ("damaged.sqlite", .integrityCheckFailed),
        ] {
            let before = files
            await #expect(throws: DatabaseMaintenanceError(code, ""), "\(name)") {
                try await SQLiteBackup.restore(from: path(name), to: path("target.sqlite"), replacing: true, now: Date())
            }
            #expect(files == before, "\(name) left \(files.subtracting(before))")
        }
    }

    /// The error a step throws, to look at its code and reason.
    func failure(_ body: () async throws -> Void) async -> DatabaseMaintenanceError? {
        do {
            try await body()
        } catch let error as DatabaseMaintenanceError {
            return error
        } catch {
            Issue.record("not a DatabaseMaintenanceError: \(error)")
        }
        return nil
    }

    @Test func aDestinationThatCannotBeWrittenIsNamedWithTheSystemsReason() async throws {
        let harness = try await populated()
        _ = harness
        try Data("in the way".utf8).write(to: folder.appendingPathComponent("file"))
        var cases = [("no-such-folder/backup.sqlite", "No such file or directory"), ("file/backup.sqlite", "Not a directory")]
        // Root writes into a read-only folder: permission can only be provoked for other users.
        if geteuid() != 0 {
            try FileManager.default.createDirectory(atPath: path("read-only"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o500])
            cases.append(("read-only/backup.sqlite", "Permission denied"))
        }
        for (destination, reason) in cases {
            let before = files
            let backup = await failure { _ = try await SQLiteBackup.backup(database: path("live.sqlite"), to: path(destination), replacing: false) }
            #expect(backup?.code.rawValue == "cannot_write", "\(destination): \(String(describing: backup))")
            #expect(backup?.reason.contains(path(destination)) == true, "names the destination: \(String(describing: backup))")
            #expect(backup?.reason.contains(reason) == true, "and why: \(String(describing: backup))")
            let restore = await failure { _ = try await SQLiteBackup.restore(from: path("live.sqlite"), to: path(destination), replacing: false, now: Date()) }
            #expect(restore?.code.rawValue == "cannot_write", "\(destination): \(String(describing: restore))")
            #expect(restore?.reason.contains(path(destination)) == true && restore?.reason.contains(reason) == true, "\(String(describing: restore))")
            #expect(files == before, "\(destination) left \(files.subtracting(before))")
        }
        // The source side keeps its code.
        let missing = await failure { _ = try await SQLiteBackup.backup(database: path("missing.sqlite"), to: path("backup.sqlite"), replacing: false) }
        #expect(missing?.code == .cannotOpen)
    }

    @Test func aRestoreFromAnEmptyOrForeignFileNamesIt() async throws {
        _ = FileManager.default.createFile(atPath: path("empty.sqlite"), contents: Data())
        try Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: folder.appendingPathComponent("noise.sqlite"))
        try SQLiteConnection(path: path("other.sqlite")).execute(script: "CREATE TABLE notes (text TEXT)")
        for (name, code) in [
            ("empty.sqlite", DatabaseMaintenanceError.Code.notATallyDatabase), ("noise.sqlite", .cannotOpen), ("other.sqlite", .notATallyDatabase),
        ] {
            let error = await failure { _ = try await SQLiteBackup.restore(from: path(name), to: path("target.sqlite"), replacing: false, now: Date()) }
            #expect(error?.code == code, "\(name): \(String(describing: error))")
            #expect(error?.reason.contains(path(name)) == true, "names the backup: \(String(describing: error))")
            #expect(error?.reason.contains(".restoring-") == false, "not the copy it checked: \(String(describing: error))")
        }
    }
}
