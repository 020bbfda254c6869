public import TallyCore

/// Why a backup, a restore or a check of a database refused or failed: a stable ``Code`` and
/// a reason for humans. Equal when the codes are equal.
public struct DatabaseMaintenanceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable, machine-readable reason.
    public let code: Code
    /// What exactly is wrong, in English.
    public let reason: String
    /// Where in Tally the failure was decided.
    public let file: String
    /// The line in ``file``.
    public let line: Int

    /// Creates a failure; the source location defaults to the caller's.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// `code: reason`, for logs and the command line.
    public var description: String { "\(code.rawValue): \(reason)" }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the code, the only part equality looks at.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable code. Codes never change meaning and are never reused; `docs/deploying.md`
    /// lists them.
    public struct Code: StableCode {
        /// The code as text, such as `cannot_open`.
        public let rawValue: String
        /// A code from its text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The source cannot be opened, or is not an SQLite database: the database a backup
        /// copies, the backup a restore copies, the file a check reads.
        public static let cannotOpen = Self(rawValue: "cannot_open")
        /// An SQLite database, but not one with Tally's tables.
        public static let notATallyDatabase = Self(rawValue: "not_a_tally_database")
        /// Migrated by a newer version of Tally than this one.
        public static let newerSchema = Self(rawValue: "newer_schema")
        /// SQLite's `integrity_check` or `foreign_key_check` found damage.
        public static let integrityCheckFailed = Self(rawValue: "integrity_check_failed")
        /// A balance differs from the sum of its ledger entries or of its lots.
        public static let ledgerMismatch = Self(rawValue: "ledger_mismatch")
        /// A rollup of the metrics differs from its recomputation from the transactions and the ledger.
        public static let rollupMismatch = Self(rawValue: "rollup_mismatch")
        /// Another process (a running `tally serve`) has the database open.
        public static let databaseInUse = Self(rawValue: "database_in_use")
        /// The file to write exists and replacing it was not asked for.
        public static let destinationExists = Self(rawValue: "destination_exists")
        /// SQLite failed while copying the database (the disk filled, an I/O error).
        public static let copyFailed = Self(rawValue: "copy_failed")
        /// The destination cannot be written: the folder of the backup, or of the database a
        /// restore puts in place, does not exist, is a file, or may not be written. The reason
        /// names the file and the system's reason.
        public static let cannotWrite = Self(rawValue: "cannot_write")

        /// Every code, in the order of their declaration.
        public static let all: [Self] = [
            .cannotOpen, .notATallyDatabase, .newerSchema, .integrityCheckFailed, .ledgerMismatch, .rollupMismatch, .databaseInUse,
            .destinationExists, .copyFailed, .cannotWrite,
        ]
    }
}
