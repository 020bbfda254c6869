import Foundation

/// A new, empty folder under the temporary directory, for one test's database files.
struct TemporaryFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tally-sql-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

    /// The path of a file in the folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
