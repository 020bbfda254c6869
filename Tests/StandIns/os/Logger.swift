// Stand-in for the part of Apple's `os` module TallyKit uses (os.Logger), so the Apple-only
// code typechecks on Linux (scripts/check_apple_sources.sh). Signatures and availability as in
// Apple's SDK (Tests/StandIns/AVAILABILITY.md). The unified logging API of Swift (Logger,
// OSLogMessage and its interpolation) came together: os/os_log(_:) states iOS 14, macOS 11,
// tvOS 14, watchOS 7 and every visionOS.

/// The level of a log message.
// Apple: os/oslogtype (the page gives no version, as the C type has none; these are os_log's, below every floor)
@available(iOS 10, macOS 10.12, tvOS 10, watchOS 3, visionOS 1, *)
public struct OSLogType: Equatable, Sendable {
    public let rawValue: UInt8
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static let `default` = OSLogType(0)
    public static let info = OSLogType(1)
    public static let debug = OSLogType(2)
    public static let error = OSLogType(16)
    public static let fault = OSLogType(17)
}

/// Whether an interpolated value is redacted.
// Apple: os/oslogprivacy
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct OSLogPrivacy: Sendable {
    public static let `public` = OSLogPrivacy()
    public static let `private` = OSLogPrivacy()
    public static let auto = OSLogPrivacy()
}

/// The interpolations a log message may hold.
// Apple: os/osloginterpolation
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}
    public mutating func appendInterpolation(_ argumentString: @autoclosure @escaping () -> String, privacy: OSLogPrivacy = .auto) {}
}

/// A log message with its interpolations.
// Apple: os/oslogmessage
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct OSLogMessage: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {}
    public init(stringInterpolation: OSLogInterpolation) {}
}

/// A logger of a subsystem and category (iOS 14, macOS 11, tvOS 14, watchOS 7).
// Apple: os/logger
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct Logger: @unchecked Sendable {
    public init(subsystem: String, category: String) {}
    public func log(level: OSLogType, _ message: OSLogMessage) {}
    public func debug(_ message: OSLogMessage) {}
    public func info(_ message: OSLogMessage) {}
    public func notice(_ message: OSLogMessage) {}
    public func error(_ message: OSLogMessage) {}
    public func fault(_ message: OSLogMessage) {}
}
