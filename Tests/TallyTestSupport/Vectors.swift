public import Foundation
public import Testing

/// Outside test data, read in place from `../shared/vectors` beside the repository (or
/// `TALLY_VECTORS`), by the tests of both packages. It is never copied into the repository;
/// where the folder is absent the tests that need it say so and are skipped.
public enum Vectors: Sendable {
    /// The folder, when it exists.
    public static let root: URL? = {
        let candidate =
            ProcessInfo.processInfo.environment["TALLY_VECTORS"].map { URL(fileURLWithPath: $0) }
            ?? Repository.root.deletingLastPathComponent().appendingPathComponent("shared/vectors")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// Whether the folder exists.
    public static var available: Bool { root != nil }
    /// Why tests that need the folder are skipped.
    public static let skipNote: Comment = "../shared/vectors is absent (set TALLY_VECTORS to its path); outside vectors are not run"

    /// The path of a file in the folder.
    /// - Throws: when the folder is absent.
    public static func path(_ relative: String) throws -> String {
        guard let root else { throw CocoaError(.fileNoSuchFile) }
        return root.appendingPathComponent(relative).path
    }

    /// A file's bytes.
    /// - Throws: when the folder or the file is absent.
    public static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try path(relative)))
    }

    /// A file's text with surrounding white space removed, as a JWS.
    /// - Throws: when the folder or the file is absent.
    public static func text(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The rows of a tab-separated manifest, as dictionaries keyed by its header.
    /// - Throws: when the folder or the file is absent.
    public static func manifest(_ relative: String) throws -> [[String: String]] {
        let lines = try text(relative).split(separator: "\n").map(String.init)
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, fields + Array(repeating: "", count: max(0, header.count - fields.count))))
        }
    }
}
