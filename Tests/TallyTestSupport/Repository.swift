public import Foundation

/// Where the repository's files are, for the tests of both packages.
public enum Repository: Sendable {
    /// The repository's root folder (the client package), which holds `Examples/` and `docs/`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The server package's folder.
    public static let server = root.appendingPathComponent("Server")
}
