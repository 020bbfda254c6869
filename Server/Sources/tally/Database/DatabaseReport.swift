import ArgumentParser
import Foundation
import TallyServer

/// How `tally backup`, `tally restore` and `tally check` answer: one JSON object on standard
/// output, `{"status":"ok",…}` (exit 0) or `{"status":"failed","code":…,"message":…}` (exit 1).
struct DatabaseReport: Encodable {
    var status = "ok"
    var code: String?
    var message: String?
    var database: String?
    var backup: String?
    var replaced: String?
    var bytes: Int64?
    var seconds: Double?
    var audit: DatabaseAudit?

    /// Prints the report; a failure then ends the process with status 1.
    func print() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(try encoder.encode(self) + Data("\n".utf8))
        if status != "ok" { throw ExitCode(1) }
    }

    /// The report of a refusal or a failure.
    static func failed(_ error: DatabaseMaintenanceError) -> DatabaseReport {
        DatabaseReport(status: "failed", code: error.code.rawValue, message: error.reason)
    }

    /// Whether a `--database` value names a PostgreSQL server rather than an SQLite file.
    static func isPostgres(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }
}
