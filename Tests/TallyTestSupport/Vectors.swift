public import Foundation
public import Testing

/// Outside test data, read in place from `../shared/vectors` beside the repository (or
/// `TALLY_VECTORS`). It is never copied into the repository; where the folder is absent the
/// tests that need it say so and are skipped.
public enum Vectors {
    public static let root: URL? = {
        let candidate =
            ProcessInfo.processInfo.environment["TALLY_VECTORS"].map { URL(fileURLWithPath: $0) }
            ?? repository.deletingLastPathComponent().appendingPathComponent("shared/vectors")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// The repository's root folder.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var available: Bool { root != nil }
    public static let skipNote: Comment = "../shared/vectors is absent (set TALLY_VECTORS to its path); outside vectors are not run"

    public static func data(_ relative: String) throws -> Data {
        guard let root else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: root.appendingPathComponent(relative))
    }

    /// A file's text with surrounding white space removed, as a JWS.
    public static func text(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The rows of a tab-separated manifest, as dictionaries keyed by its header.
    public static func manifest(_ relative: String) throws -> [[String: String]] {
        let lines = try text(relative).split(separator: "\n").map(String.init)
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, fields + Array(repeating: "", count: max(0, header.count - fields.count))))
        }
    }
}

/// SplitMix64: reproducible randomness for mutation tests.
public struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
