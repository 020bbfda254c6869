public import Logging

/// The lines of swift-log's `StreamLogHandler` on standard error, with the logger's metadata
/// formatted when a line is written rather than each time a key is set.
///
/// Every request sets three keys (Hummingbird's request id, Tally's `request_id` and `client`)
/// and at the default level logs nothing; `StreamLogHandler` formatted all of the logger's
/// metadata again at each of those sets. `tally` bootstraps this handler for all its commands:
///
/// ```swift
/// LoggingSystem.bootstrap(TallyLogHandler.standardError)
/// ```
public struct TallyLogHandler: LogHandler {
    /// Writes the lines; its own metadata stays empty, the logger's is passed with each line.
    private var stream: StreamLogHandler
    /// The logger's metadata, as set.
    public var metadata: Logger.Metadata = [:]

    /// A handler writing to standard error, as swift-log's default one does.
    /// - Parameter label: the logger's label, written on each line.
    public static func standardError(label: String) -> TallyLogHandler {
        TallyLogHandler(stream: .standardError(label: label))
    }

    /// A handler writing lines as `stream` does (used by tests with a stream of their own).
    init(stream: StreamLogHandler) {
        self.stream = stream
    }

    /// The lowest level written.
    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    /// Metadata added to each line when it is written.
    public var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    /// One key of the logger's metadata.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the line with the logger's metadata and the line's own (which wins for a key both have).
    public func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        }
        stream.log(event: event)
    }
}
