import Foundation

/// Receives TallyKit's ``LogMessage``s. The app-wide one is ``TallyLog/sink``: `os.Logger` on
/// Apple platforms; replace it to send the messages to the app's own logging.
public protocol TallyLogSink: Sendable {
    /// Receives one message; called on any thread, must not block.
    func log(_ message: LogMessage)
}

/// A sink made of a closure.
///
/// ```swift
/// TallyLog.sink = ClosureLogSink { message in crashReporter.breadcrumb(message.text) }
/// ```
public struct ClosureLogSink: TallyLogSink {
    private let body: @Sendable (LogMessage) -> Void
    /// - Parameter body: called with each message.
    public init(_ body: @escaping @Sendable (LogMessage) -> Void) { self.body = body }
    public func log(_ message: LogMessage) { body(message) }
}

/// Where a ``PurchaseManager`` sends its decisions (refused verifications with their code,
/// retries, finishes, restores, refunds taken back, and what it could not do), and how loudly.
///
/// By default messages go to the app-wide ``sink`` and a fault (a refused verification, which
/// a setup mistake makes of every purchase) also raises the ``alarm``: in a Debug build on an
/// Apple platform an `assertionFailure`, so the mistake stops the developer at the first
/// purchase instead of charging customers later.
///
/// ```swift
/// TallyLog.sink = ClosureLogSink { message in print(message.level, message.text) }   // app-wide
/// var configuration = PurchaseManager.Configuration(productIDs: ids)
/// configuration.log = TallyLog(alarm: TallyLog.silent)                              // tests that refuse on purpose
/// ```
public struct TallyLog: Sendable {
    /// Where this log's messages go; `nil` for the app-wide ``TallyLog/sink``, read at each message.
    public var output: (any TallyLogSink)?
    /// Called with each fault after it was logged.
    public var alarm: @Sendable (LogMessage) -> Void

    /// - Parameters:
    ///   - output: where messages go; the app-wide ``TallyLog/sink`` when `nil`.
    ///   - alarm: called with each fault; ``assertInDebug`` by default.
    public init(output: (any TallyLogSink)? = nil, alarm: @escaping @Sendable (LogMessage) -> Void = TallyLog.assertInDebug) {
        self.output = output
        self.alarm = alarm
    }

    /// Logs a message, and raises the alarm when it is a fault.
    /// - Parameter message: what happened.
    public func log(_ message: LogMessage) {
        (output ?? Self.sink).log(message)
        if message.level == .fault { alarm(message) }
    }

    /// The app-wide sink: `os.Logger` (subsystem `dev.tally`, category `purchases`) on Apple
    /// platforms, nothing elsewhere. Set it once at launch, before making a manager.
    public static var sink: any TallyLogSink {
        get { shared.withLock { $0 } }
        set { shared.withLock { $0 = newValue } }
    }

    /// The default alarm: `assertionFailure` with the message in Debug builds on Apple
    /// platforms; nothing in Release builds, nor where there is no app (Linux).
    public static let assertInDebug: @Sendable (LogMessage) -> Void = { message in
        #if DEBUG && canImport(os)
        assertionFailure("TallyKit: " + message.text)
        #endif
    }

    /// An alarm that does nothing: the fault is only logged.
    public static let silent: @Sendable (LogMessage) -> Void = { _ in }

    private static let shared = LockedSink(SystemLogSink())
}

/// The app-wide sink behind a lock.
private final class LockedSink: @unchecked Sendable {
    private let lock = NSLock()
    private var value: any TallyLogSink

    init(_ value: any TallyLogSink) { self.value = value }

    func withLock<T>(_ body: (inout any TallyLogSink) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
