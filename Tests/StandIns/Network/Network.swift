// Stand-in declarations of the Network API that TallyKit uses (NetworkPathConnectivity), with
// Apple's names, types and availability (scripts/check_apple_sources.sh,
// Tests/StandIns/AVAILABILITY.md). Nothing here runs.
import Dispatch

// Apple: network/nwpath
@available(iOS 12, macOS 10.14, tvOS 12, watchOS 5, visionOS 1, *)
public struct NWPath: Sendable {
    public enum Status: Sendable, Hashable {
        case satisfied, unsatisfied, requiresConnection
    }
    public let status: NWPath.Status
}

// Apple: network/nwpathmonitor
@available(iOS 12, macOS 10.14, tvOS 12, watchOS 5, visionOS 1, *)
public final class NWPathMonitor: @unchecked Sendable {
    public init() {}
    public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)?
    public func start(queue: DispatchQueue) {}
    public func cancel() {}
}
