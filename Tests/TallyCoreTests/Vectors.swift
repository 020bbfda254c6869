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
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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
