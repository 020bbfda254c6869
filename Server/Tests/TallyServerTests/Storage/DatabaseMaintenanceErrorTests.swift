import Foundation
import TallyCore
import TallyServer
import TallyTestSupport
import Testing

/// The codes `tally backup`, `tally restore` and `tally check` print are stable strings, and the
/// deployment guide names each of them.
@Suite struct DatabaseMaintenanceErrorTests {
    /// Each code's text, as the commands have always printed it.
    static let codes: [(DatabaseMaintenanceError.Code, String)] = [
        (.cannotOpen, "cannot_open"), (.notATallyDatabase, "not_a_tally_database"), (.newerSchema, "newer_schema"),
        (.integrityCheckFailed, "integrity_check_failed"), (.ledgerMismatch, "ledger_mismatch"),
        (.rollupMismatch, "rollup_mismatch"), (.databaseInUse, "database_in_use"), (.destinationExists, "destination_exists"), (.copyFailed, "copy_failed"),
        (.cannotWrite, "cannot_write"),
    ]

    @Test(arguments: codes)
    func everyCodeKeepsItsText(code: DatabaseMaintenanceError.Code, text: String) throws {
        #expect(code.rawValue == text)
        #expect(code.description == text)
        #expect(DatabaseMaintenanceError.Code(known: text) == code)
        #expect(String(decoding: try JSONEncoder().encode(code), as: UTF8.self) == "\"\(text)\"")
        #expect(DatabaseMaintenanceError(code, "why").description == "\(text): why")
    }

    @Test func theTableCoversEveryCodeOnce() {
        #expect(Self.codes.map(\.0) == DatabaseMaintenanceError.Code.all)
        #expect(Set(DatabaseMaintenanceError.Code.all.map(\.rawValue)).count == DatabaseMaintenanceError.Code.all.count)
    }

    @Test func aCodeThisVersionDoesNotKnowSurvivesDecoding() throws {
        let code = try JSONDecoder().decode(DatabaseMaintenanceError.Code.self, from: Data(#""disk_on_fire""#.utf8))
        #expect(code.rawValue == "disk_on_fire")
        #expect(!code.isKnown)
    }

    @Test func theDeploymentGuideNamesEveryCode() throws {
        let guide = try String(contentsOf: Repository.root.appendingPathComponent("docs/deploying.md"), encoding: .utf8)
        for code in DatabaseMaintenanceError.Code.all {
            #expect(guide.contains("`\(code.rawValue)`"), "docs/deploying.md does not name \(code)")
        }
    }
}
