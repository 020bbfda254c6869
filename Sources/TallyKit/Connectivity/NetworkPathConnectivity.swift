#if canImport(Network)
import Foundation
import Network

/// Connectivity from the system's network path monitor.
public final class NetworkPathConnectivity: Connectivity, @unchecked Sendable {
    private let monitor = NWPathMonitor()
    private let lock = NSLock()
    private var satisfied = true

    /// Starts monitoring the network path.
    public init() {
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self else { return }
            self.lock.withLock { self.satisfied = path.status == .satisfied }
        }
        monitor.start(queue: DispatchQueue(label: "tally.connectivity"))
    }

    deinit { monitor.cancel() }

    public func isOnline() async -> Bool { lock.withLock { satisfied } }
}
#endif
