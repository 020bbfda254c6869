// Not on watchOS: there an NWPathMonitor stays unsatisfied for every app outside audio
// streaming, VoIP and device discovery (TN3135), so it would report every watch offline.
#if canImport(Network) && !os(watchOS)
import Foundation
import Network

/// Connectivity from the system's network path monitor (not on watchOS, where apps cannot use it:
/// TN3135).
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
