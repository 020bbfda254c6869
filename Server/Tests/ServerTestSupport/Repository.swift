public import Foundation

/// Where the repository's files are, for the server package's tests.
public enum Repository {
    /// The repository's root folder (the client package), which holds `Examples/`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The server package's folder.
    public static let server = root.appendingPathComponent("Server")
}
