import ArgumentParser
import Foundation
import TallyServer

/// `tally backup`: an online, consistent, checked copy of the SQLite database.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database while tally serve keeps answering, and check the copy.",
        discussion: """
            The copy is one consistent snapshot (SQLite's online backup API). It is checked before it gets
            its name: SQLite's integrity_check, Tally's schema, and every balance equal to the sum of its
            ledger. Prints {"status":"ok","backup":…,"audit":{…}} and exits 0, or prints
            {"status":"failed","code":…,"message":…} and exits 1, leaving nothing at FILE.
            For PostgreSQL use pg_dump (docs/deploying.md).
            """)

    @Option(help: "The backup file to write; refused if it exists, unless --force.")
    var to: String

    @Option(help: "The SQLite database file of tally serve.")
    var database: String = "tally.sqlite"

    @Flag(help: "Replace FILE if it exists.")
    var force = false

    func validate() throws {
        if DatabaseReport.isPostgres(database) {
            throw ValidationError(
                "tally backup copies an SQLite file; back up PostgreSQL with pg_dump, or continuous archiving for point-in-time recovery (docs/deploying.md)")
        }
    }

    func run() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let outcome = try await SQLiteBackup.backup(database: database, to: to, replacing: force)
            let elapsed = clock.now - start
            try DatabaseReport(
                database: database, backup: outcome.path, bytes: outcome.bytes,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                audit: outcome.audit
            ).print()
        } catch let error as DatabaseMaintenanceError {
            try DatabaseReport.failed(error).print()
        }
    }
}
