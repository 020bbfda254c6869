import Foundation
import TallyKit
import Testing

/// On Apple Watch the path monitor never reports a path (TN3135): the default connectivity must
/// not refuse purchases and restores as offline there, and must still follow it elsewhere.
@Suite struct DefaultConnectivityTests {
    /// A path monitor as watchOS runs it for an ordinary app: unsatisfied for good.
    private func unsatisfiedMonitor() -> any Connectivity { ManualConnectivity(online: false) }

    @Test func aWatchIsNotTakenAsOfflineByItsPathMonitor() async {
        let connectivity = DefaultConnectivity.make(on: .watchOS, pathMonitor: unsatisfiedMonitor)
        #expect(await connectivity.isOnline())
    }

    @Test func elsewhereThePathMonitorDecides() async {
        let connectivity = DefaultConnectivity.make(on: .other, pathMonitor: unsatisfiedMonitor)
        #expect(await connectivity.isOnline() == false)
    }
}
