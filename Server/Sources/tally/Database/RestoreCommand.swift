import ArgumentParser
import Foundation
import TallyServer

/// `tally restore`: puts a checked backup in place of the SQLite database.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Check a backup and put it in place as the SQLite database of tally serve.",
        discussion: """
            A fresh copy of FILE is checked (SQLite's integrity_check, Tally's schema, every balance equal to
            the sum of its ledger) before anything changes; FILE itself is left as it is. An existing database
            is replaced only with --force, and only when no other process has it open (stop tally serve
            first); it is kept as DATABASE.replaced-<time>, with its WAL. Migrations of a newer Tally run
            when tally serve starts. Prints {"status":"ok",…} and exits 0, or {"status":"failed","code":…}
            and exits 1. For PostgreSQL use pg_restore (docs/deploying.md).
            """)

    @Option(help: "The backup to restore (written by tally backup).")
    var from: String

    @Option(help: "The SQLite database file to restore into.")
    var database: String = "tally.sqlite"

    @Flag(help: "Replace an existing database (it is kept under a new name).")
    var force = false

    func validate() throws {
        if DatabaseReport.isPostgres(database) {
            throw ValidationError(
                "tally restore writes an SQLite file; restore PostgreSQL with pg_restore or its point-in-time recovery (docs/deploying.md)")
        }
    }

    func run() async throws {
        do {
            let outcome = try await SQLiteBackup.restore(from: from, to: database, replacing: force, now: Date())
            try DatabaseReport(database: outcome.path, backup: from, replaced: outcome.replaced, bytes: outcome.bytes, audit: outcome.audit).print()
        } catch let error as DatabaseMaintenanceError {
            try DatabaseReport.failed(error).print()
        }
    }
}
