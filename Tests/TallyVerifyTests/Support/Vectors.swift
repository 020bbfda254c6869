import Foundation

/// Apple's test vectors, read in place from `../shared/vectors` beside the repository (or
/// `TALLY_VECTORS`). They are outside data and never copied into the repository; where the
/// folder is absent the tests that need it say so and are skipped.
enum Vectors {
    static let root: URL? = {
        if let path = ProcessInfo.processInfo.environment["TALLY_VECTORS"] {
            return URL(fileURLWithPath: path)
        }
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidate = repository.deletingLastPathComponent().appendingPathComponent("shared/vectors")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    static var available: Bool { root != nil }
    static let skipNote: Comment = "../shared/vectors is absent (set TALLY_VECTORS to its path); Apple's vectors are not run"

    static func data(_ relative: String) throws -> Data {
        guard let root else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: root.appendingPathComponent(relative))
    }
}

import Testing

extension Vectors {
    /// A file's text with surrounding white space removed, as a JWS.
    static func text(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The rows of a tab-separated manifest, as dictionaries keyed by its header.
    static func manifest(_ relative: String) throws -> [[String: String]] {
        let lines = try text(relative).split(separator: "\n").map(String.init)
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, fields + Array(repeating: "", count: max(0, header.count - fields.count))))
        }
    }
}
