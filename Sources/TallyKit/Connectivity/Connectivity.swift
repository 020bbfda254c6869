import Foundation

/// Whether the device can reach the network now. A purchase is not started offline.
public protocol Connectivity: Sendable {
    /// Whether the device is online now.
    func isOnline() async -> Bool
}

/// Connectivity that the app (or a test) sets: for platforms without a path monitor, or to
/// follow the app's own reachability.
public final class ManualConnectivity: Connectivity, @unchecked Sendable {
    private let lock = NSLock()
    private var online: Bool

    /// - Parameter online: the starting state; online by default.
    public init(online: Bool = true) { self.online = online }

    /// Sets the state.
    public func set(online: Bool) { lock.withLock { self.online = online } }

    public func isOnline() async -> Bool { lock.withLock { online } }
}
