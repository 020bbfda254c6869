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
    /// Writes the lines; its own metadata and provider stay empty, the logger's are passed with each line.
    private var stream: StreamLogHandler
    /// The logger's metadata, as set.
    public var metadata: Logger.Metadata = [:]
    /// Metadata added to each line when it is written (over the logger's, under the line's own).
    public var metadataProvider: Logger.MetadataProvider?

    /// A handler writing to standard error, as swift-log's default one does.
    /// - Parameter label: the logger's label, written on each line.
    public static func standardError(label: String) -> TallyLogHandler {
        TallyLogHandler(stream: .standardError(label: label, metadataProvider: nil), metadataProvider: LoggingSystem.metadataProvider)
    }

    /// A handler writing lines as `stream` does (used by tests with a stream of their own,
    /// which must have no metadata provider of its own).
    init(stream: StreamLogHandler, metadataProvider: Logger.MetadataProvider? = nil) {
        self.stream = stream
        self.metadataProvider = metadataProvider
    }

    /// The lowest level written.
    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    /// One key of the logger's metadata.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the line with the logger's metadata, the provider's and the line's own, each
    /// winning over the one before for a key both have, as `StreamLogHandler` merges them.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { _, provided in provided } }
        var event = event
        if let explicit = event.metadata { merged.merge(explicit) { _, explicit in explicit } }
        event.metadata = merged
        stream.log(event: event)
    }
}
