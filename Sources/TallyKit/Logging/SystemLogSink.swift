#if canImport(os)
import os
#endif

/// The system's log: `os.Logger` with subsystem `dev.tally` and category `purchases` on Apple
/// platforms from iOS 14, macOS 11, tvOS 14 and watchOS 7 (read it in Console.app or Xcode's
/// console, filtered by subsystem); nothing below them, nor where there is no `os` module.
/// Messages carry no personal data (transaction and product ids, codes), so they are public.
public struct SystemLogSink: TallyLogSink {
    /// The `os.Logger` subsystem.
    public static let subsystem = "dev.tally"
    /// The `os.Logger` category.
    public static let category = "purchases"

    public init() {}

    public func log(_ message: LogMessage) {
        #if canImport(os)
        guard #available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *) else { return }
        let text = message.text
        let type: OSLogType =
            switch message.level {
            case .debug: .debug
            case .info: .info
            case .notice: .default
            case .error: .error
            case .fault: .fault
            }
        Logger(subsystem: Self.subsystem, category: Self.category).log(level: type, "\(text, privacy: .public)")
        #endif
    }
}
