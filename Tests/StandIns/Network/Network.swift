// Stand-in declarations of the Network API that TallyKit uses (NetworkPathConnectivity), with
// Apple's names and types (scripts/check_apple_sources.sh). Nothing here runs.
import Dispatch

public struct NWPath: Sendable {
    public enum Status: Sendable, Hashable {
        case satisfied, unsatisfied, requiresConnection
    }
    public let status: NWPath.Status
}

public final class NWPathMonitor: @unchecked Sendable {
    public init() {}
    public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)?
    public func start(queue: DispatchQueue) {}
    public func cancel() {}
}
