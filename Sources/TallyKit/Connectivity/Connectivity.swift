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

/// Which connectivity a ``PurchaseManager`` uses when the app gives none.
package enum DefaultConnectivity {
    /// The platform families that decide it.
    package enum Platform: Sendable {
        /// Apple Watch: apps may not use low-level networking there.
        case watchOS
        /// Every other platform.
        case other

        /// The platform this build runs on.
        package static var current: Platform {
            #if os(watchOS)
            .watchOS
            #else
            .other
            #endif
        }
    }

    /// On watchOS none at all: an `NWPathMonitor` stays unsatisfied there for every app outside
    /// audio streaming, VoIP and device discovery (TN3135), so a path check would refuse every
    /// purchase and restore as offline; StoreKit reports a real network failure itself
    /// (`network_error`). Elsewhere the system's path monitor, made by `pathMonitor`.
    /// - Parameters:
    ///   - platform: where the app runs.
    ///   - pathMonitor: makes the path monitor's connectivity.
    package static func make(on platform: Platform, pathMonitor: () -> any Connectivity) -> any Connectivity {
        switch platform {
        case .watchOS: ManualConnectivity(online: true)
        case .other: pathMonitor()
        }
    }
}
