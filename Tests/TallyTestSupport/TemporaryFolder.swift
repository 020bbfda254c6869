public import Foundation

/// A new, empty folder under the temporary directory, for one test's files (databases,
/// configuration, output); `remove()` deletes it with what it holds.
///
/// ```swift
/// let folder = try TemporaryFolder()
/// defer { folder.remove() }
/// let database = try SQLiteDatabase(path: folder.path("tally.sqlite"))
/// ```
public struct TemporaryFolder: Sendable {
    /// The folder.
    public let url = FileManager.default.temporaryDirectory.appendingPathComponent("tally-test-\(UUID().uuidString)")

    /// Creates the folder.
    /// - Throws: when it cannot be created.
    public init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

    /// The path of a file in the folder.
    /// - Parameter name: the file's name.
    /// - Returns: its path.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The URL of a file in the folder.
    /// - Parameter name: the file's name.
    /// - Returns: its URL.
    public func fileURL(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Deletes the folder and what it holds.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
