import ArgumentParser
import Foundation
import TallyServer

/// `tally check`: does every balance equal its ledger? On a live database or a backup.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a Tally database (SQLite file or PostgreSQL) without changing it.",
        discussion: """
            On one snapshot: Tally's schema, every balance equal to the sum of its ledger entries and of its
            lots, every metrics rollup equal to its recomputation, and the totals of each currency; on SQLite also integrity_check and foreign_key_check.
            Safe while tally serve runs. Prints {"status":"ok","audit":{…}} and exits 0, or
            {"status":"failed","code":…,"message":…,"audit":{…}} and exits 1.
            """)

    @Option(help: "An SQLite file path, or a postgres:// URL.")
    var database: String = "tally.sqlite"

    func run() async throws {
        let name = DatabaseReport.isPostgres(database) ? "postgres" : database
        let audit: DatabaseAudit
        do {
            if DatabaseReport.isPostgres(database) {
                let postgres: PostgresDatabase
                do {
                    postgres = try await PostgresDatabase.connect(url: database)
                } catch {
                    throw DatabaseMaintenanceError(.cannotOpen, error.message)
                }
                do {
                    audit = try await DatabaseAudit.run(on: postgres)
                    await postgres.close()
                } catch {
                    await postgres.close()
                    throw error
                }
            } else {
                audit = try await SQLiteBackup.check(file: database)
            }
        } catch let error as DatabaseMaintenanceError {
            var report = DatabaseReport.failed(error)
            report.database = name
            return try report.print()
        }
        guard audit.mismatchCount == 0 else {
            return try DatabaseReport(
                status: "failed", code: DatabaseMaintenanceError.Code.ledgerMismatch.rawValue,
                message: "\(audit.mismatchCount) balance(s) differ from their ledger or lots",
                database: name, audit: audit
            ).print()
        }
        guard audit.isConsistent else {
            return try DatabaseReport(
                status: "failed", code: DatabaseMaintenanceError.Code.rollupMismatch.rawValue,
                message: "\(audit.rollupDifferenceCount) metrics rollup(s) differ from their recomputation from the transactions and the ledger",
                database: name, audit: audit
            ).print()
        }
        try DatabaseReport(database: name, audit: audit).print()
    }
}
